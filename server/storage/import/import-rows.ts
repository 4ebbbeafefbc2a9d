import type { PoolClient } from 'pg';
import type { FieldColumn } from '../postgres/rows';
import { tableCount, type TableCount } from '../postgres/table-count';

/** Rows per statement: large enough to be quick, small enough to keep each statement's parameter a few megabytes. */
const BATCH = 5_000;

/**
 * A codec's table as the import fills it: the columns are the codec's (its `recordTable` spec), so that they are
 * listed once; each is read from the record's field (`hash` for `key_hash`).
 */
export interface ImportTarget {
  table: string;
  /**
   * The primary key (its columns, comma-separated): a row that conflicts on it is left alone; any other conflict is
   * an error.
   */
  key: string;
  columns: readonly FieldColumn[];
}

/** Where the import reads a column otherwise than the codec writes it: as another type, computed from the row `r`. */
export interface ColumnOverride {
  type: string;
  expression: string;
}

/**
 * Inserts `rows` (the records, with the target's fields as properties) in batches, in their order, through `INSERT …
 * SELECT … FROM jsonb_to_recordset($1) ORDER BY` their index: rows that take a default from a sequence (migration
 * 0002's document positions) get them in file order. Returns the primary keys of the rows inserted (those that were
 * not already present), as text.
 */
export async function insertNewRows(
  client: PoolClient,
  target: ImportTarget,
  rows: readonly object[],
  overrides: Readonly<Record<string, ColumnOverride>> = {},
): Promise<string[]> {
  const columns = target.columns.map((c) => {
    const field = c.field ?? c.name;
    const override = overrides[c.name];
    return {
      name: c.name,
      declared: `${field} ${override?.type ?? c.type}`,
      value: override?.expression ?? `r.${field}`,
    };
  });
  const sql = `INSERT INTO ${target.table} (${columns.map((c) => c.name).join(', ')})
     SELECT ${columns.map((c) => c.value).join(', ')}
       FROM jsonb_to_recordset($1::jsonb) AS r(${columns.map((c) => c.declared).join(', ')}, import_order integer)
      ORDER BY r.import_order
     ON CONFLICT (${target.key}) DO NOTHING
     RETURNING (${target.key})::text AS key`;
  const inserted: string[] = [];
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH).map((row, j) => ({ ...row, import_order: i + j }));
    const result = await client.query<{ key: string }>(sql, [JSON.stringify(batch)]);
    for (const row of result.rows) inserted.push(row.key);
  }
  return inserted;
}

/** insertNewRows, counted: how many rows there were, and how many of them the database did not have yet. */
export async function insertCounted(
  client: PoolClient,
  target: ImportTarget,
  rows: readonly object[],
  overrides?: Readonly<Record<string, ColumnOverride>>,
): Promise<TableCount> {
  return tableCount(rows.length, (await insertNewRows(client, target, rows, overrides)).length);
}

/**
 * Loads `rows` into a temporary table (dropped at commit or rollback) with an `ord` column numbering them in file
 * order, in batches; the caller then inserts from it with one statement, which sees all of them at once.
 */
export async function loadTemporary(
  client: PoolClient,
  table: string,
  columns: string,
  rows: readonly object[],
): Promise<void> {
  await client.query(`CREATE TEMPORARY TABLE ${table} (ord integer NOT NULL, ${columns}) ON COMMIT DROP`);
  const sql = `INSERT INTO ${table} SELECT * FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)`;
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH).map((row, j) => ({ ord: i + j, ...row }));
    await client.query(sql, [JSON.stringify(batch)]);
  }
}
