import type { Declaration } from '../../shared/domain/declaration';
import {
  diffRows,
  nullableTimestampIn,
  nullableTimestampOut,
  recordTable,
  writeDiff,
  type Column,
  type Queryable,
} from '../storage/postgres/rows';
import { DeclarationsFile } from './declaration-records';
import type { TableCodec } from '../storage/document';

/** The table `declarations`: every field of a declaration but its LGAs (the table `declaration_lgas`). */
export const DECLARATIONS = recordTable<Omit<Declaration, 'lgas'>>({
  table: 'declarations',
  label: 'declaration',
  key: 'agrn',
  ordered: true,
  columns: [
    { name: 'agrn', type: 'text' },
    { name: 'title', type: 'text' },
    { name: 'state', type: 'text' },
    { name: 'hazard_type', type: 'text' },
    { name: 'start_date', type: 'date' },
    { name: 'end_date', type: 'date', nullable: true },
    { name: 'url', type: 'text' },
    { name: 'sources', type: 'text[]' },
  ],
});

/** The columns of `declaration_lgas`: a row per LGA of a declaration, by its position (for the JSON import). */
export const DECLARATION_LGA_COLUMNS: readonly Column[] = [
  { name: 'agrn', type: 'text' },
  { name: 'position', type: 'integer' },
  { name: 'name', type: 'text' },
  { name: 'code', type: 'text' },
];

const byAgrn = (d: Declaration) => d.agrn;

const sameRow = (a: Declaration, b: Declaration) =>
  JSON.stringify(DECLARATIONS.toRow(a)) === JSON.stringify(DECLARATIONS.toRow(b));
const sameLgas = (a: Declaration, b: Declaration) => JSON.stringify(a.lgas) === JSON.stringify(b.lgas);

/**
 * declarations.json as the tables `declarations` (in the order of the array, which the ingest keeps sorted),
 * `declaration_lgas` (each declaration's LGAs by position) and `declarations_meta` (last_updated). A refresh that
 * changes a few declarations writes those few; a declaration whose LGAs changed has its LGA rows written again.
 */
export const declarationsCodec: TableCodec<DeclarationsFile> = {
  async load(client: Queryable): Promise<DeclarationsFile> {
    const meta = await client.query('SELECT last_updated FROM declarations_meta');
    const declarations = await client.query(`SELECT ${DECLARATIONS.select} FROM declarations ORDER BY position, agrn`);
    const lgas = await client.query('SELECT agrn, name, code FROM declaration_lgas ORDER BY agrn, position');
    const lgasOf = new Map<string, Declaration['lgas']>();
    for (const r of lgas.rows) {
      let list = lgasOf.get(r.agrn);
      if (!list) lgasOf.set(r.agrn, (list = []));
      list.push({ name: r.name, code: r.code });
    }
    return {
      last_updated: nullableTimestampOut(meta.rows[0]?.last_updated),
      declarations: declarations.rows.map((r) => ({ ...DECLARATIONS.fromRow(r), lgas: lgasOf.get(r.agrn) ?? [] })),
    };
  },

  async save(client: Queryable, before: DeclarationsFile, after: DeclarationsFile): Promise<void> {
    const diff = diffRows(before.declarations, after.declarations, byAgrn);
    const previous = new Map(before.declarations.map((d) => [d.agrn, d]));
    const changedRows = diff.updated.filter((d) => !sameRow(previous.get(d.agrn)!, d));
    const changedLgas = diff.updated.filter((d) => !sameLgas(previous.get(d.agrn)!, d));
    await writeDiff(
      client,
      DECLARATIONS,
      { ...diff, updated: changedRows },
      byAgrn,
      DECLARATIONS.toRow,
      after.declarations,
    );
    if (changedLgas.length > 0) {
      await client.query('DELETE FROM declaration_lgas WHERE agrn = ANY($1::text[])', [changedLgas.map(byAgrn)]);
    }
    const lgaRows = [...diff.inserted, ...changedLgas].flatMap((d) =>
      d.lgas.map((lga, position) => ({ agrn: d.agrn, position, name: lga.name, code: lga.code })),
    );
    if (lgaRows.length > 0) {
      await client.query(
        `INSERT INTO declaration_lgas (agrn, position, name, code)
         SELECT agrn, position, name, code
         FROM jsonb_to_recordset($1::jsonb) AS v(agrn text, position integer, name text, code text)`,
        [JSON.stringify(lgaRows)],
      );
    }
    if (before.last_updated !== after.last_updated) {
      await client.query('UPDATE declarations_meta SET last_updated = $1::timestamptz', [
        nullableTimestampIn(after.last_updated, 'declarations last_updated'),
      ]);
    }
  },
};
