import type { PoolClient } from 'pg';
import { readStoreFile, type FeatureImporter } from '../storage/import/feature-importer';
import { step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { insertNewRows } from '../storage/import/import-rows';
import { anyInserted, tableCount } from '../storage/postgres/table-count';
import { type DeclarationsFile } from './declaration-records';
import { DECLARATION_LGA_COLUMNS, DECLARATIONS } from './declaration-tables';
import { declarationsDocument } from './declarations-document';

type DeclarationCounts = Pick<ImportCounts, 'declarations' | 'declarationLgas' | 'declarationsLastUpdated'>;

/** `sources` arrives as a JSON array: made a text[] in its order. */
const SOURCES = {
  type: 'jsonb',
  expression:
    'ARRAY(SELECT s.value FROM jsonb_array_elements_text(r.sources) WITH ORDINALITY AS s(value, n) ORDER BY s.n)',
};

/**
 * declarations.json into `declarations`, `declaration_lgas` and `declarations_meta`: new declarations with their
 * LGAs in order (a declaration the database has, by AGRN, is left as it is, LGAs too), and the refresh time when the
 * database's is older.
 */
export const declarationsImporter: FeatureImporter<DeclarationsFile, DeclarationCounts> = {
  document: declarationsDocument.name,

  read: readStoreFile(declarationsDocument, { last_updated: null, declarations: [] }),

  async write(client, file) {
    const { declarations, declarationLgas } = await step('declarations', () => insertDeclarations(client, file));
    const declarationsLastUpdated = await step('declarations last_updated', () =>
      updateLastUpdated(client, file.last_updated),
    );
    return {
      counts: { declarations, declarationLgas, declarationsLastUpdated },
      changed: anyInserted(declarations, declarationLgas) || declarationsLastUpdated.updated,
    };
  },
};

/** New declarations with their LGAs in order; a declaration the database has (same AGRN) is left as it is, LGAs too. */
async function insertDeclarations(
  client: PoolClient,
  file: DeclarationsFile,
): Promise<Pick<DeclarationCounts, 'declarations' | 'declarationLgas'>> {
  const declarations = file.declarations.map(({ lgas: _lgas, ...declaration }) => declaration);
  const added = new Set(await insertNewRows(client, DECLARATIONS, declarations, { sources: SOURCES }));
  const lgas = file.declarations.flatMap((d) =>
    d.lgas.map((lga, position) => ({ agrn: d.agrn, position, name: lga.name, code: lga.code })),
  );
  const insertedLgas = await insertNewRows(
    client,
    { table: 'declaration_lgas', key: 'agrn, position', columns: DECLARATION_LGA_COLUMNS },
    lgas.filter((l) => added.has(l.agrn)),
  );
  return {
    declarations: tableCount(file.declarations.length, added.size),
    declarationLgas: tableCount(lgas.length, insertedLgas.length),
  };
}

/** declarations_meta.last_updated takes the file's value when the database has none or an older one. */
async function updateLastUpdated(
  client: PoolClient,
  lastUpdated: string | null,
): Promise<DeclarationCounts['declarationsLastUpdated']> {
  const { rows } = await client.query<{ last_updated: Date | null }>(
    'SELECT last_updated FROM declarations_meta WHERE singleton',
  );
  const before = rows[0]?.last_updated?.toISOString() ?? null;
  if (lastUpdated === null) return { inDataDir: null, before, updated: false };
  const { rowCount } = await client.query(
    `INSERT INTO declarations_meta (singleton, last_updated) VALUES (true, $1::timestamptz)
     ON CONFLICT (singleton) DO UPDATE SET last_updated = EXCLUDED.last_updated
      WHERE declarations_meta.last_updated IS NULL OR declarations_meta.last_updated < EXCLUDED.last_updated`,
    [lastUpdated],
  );
  return { inDataDir: lastUpdated, before, updated: (rowCount ?? 0) > 0 };
}
