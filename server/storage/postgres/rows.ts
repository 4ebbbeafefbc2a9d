import pg from 'pg';

/** What the codecs write and read through: a pooled client inside the store's transaction. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/** The records of one array of a document, before and after a change, matched by id. */
export interface RowDiff<R> {
  /** Records whose id is new, in the order of `after`. */
  inserted: R[];
  /** Records whose id existed and whose content changed (as they are after). */
  updated: R[];
  /** Records whose id is gone (as they were before). */
  deleted: R[];
  /**
   * Whether `after` lists the records that stayed in their old order with the new ones at the end: then rows keep
   * their positions and new rows take the next ones; otherwise the positions are given again (`renumber`).
   */
  appendOnly: boolean;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Compares two versions of a document's array record by record, so that a write touches only the rows that changed
 * instead of rewriting the table: the usage flush changes a few keys' last_used_at, not the whole key table.
 */
export function diffRows<R>(
  before: readonly R[],
  after: readonly R[],
  keyOf: (row: R) => string,
  same: (a: R, b: R) => boolean = sameJson,
): RowDiff<R> {
  const previous = new Map<string, { row: R; index: number }>();
  before.forEach((row, index) => previous.set(keyOf(row), { row, index }));
  const seen = new Set<string>();
  const inserted: R[] = [];
  const updated: R[] = [];
  let appendOnly = true;
  let lastKept = -1;
  for (const row of after) {
    const key = keyOf(row);
    // Two records with one id would become one row: refused rather than silently merged.
    if (seen.has(key)) throw new Error(`two records have the id ${JSON.stringify(key)}`);
    seen.add(key);
    const old = previous.get(key);
    if (!old) {
      inserted.push(row);
      continue;
    }
    if (inserted.length > 0 || old.index < lastKept) appendOnly = false;
    lastKept = old.index;
    if (!same(old.row, row)) updated.push(row);
  }
  const deleted = before.filter((row) => !seen.has(keyOf(row)));
  return { inserted, updated, deleted, appendOnly };
}

/** One column a codec writes: its name and SQL type (`text`, `timestamptz`, `date`, `text[]`, `jsonb`, …). */
export interface Column {
  name: string;
  type: string;
}

/** A table that holds one array of a document: its rows are matched by `key` and ordered by `position` if it has one. */
export interface TableSpec {
  table: string;
  key: string;
  /** Every column written, the key included. */
  columns: readonly Column[];
  /** Whether the table has the `position` column of migration 0002 (the array's order). */
  ordered: boolean;
}

const id = (name: string) => pg.escapeIdentifier(name);

/**
 * The rows as one jsonb parameter, read back with jsonb_to_recordset: one statement whatever the number of rows, and
 * each value converted by PostgreSQL to its column's type (ISO text to timestamptz, JSON arrays to text[]).
 */
function recordset(spec: TableSpec, alias: string): string {
  return `ROWS FROM (jsonb_to_recordset($1::jsonb) AS (${spec.columns.map((c) => `${id(c.name)} ${c.type}`).join(', ')})) WITH ORDINALITY AS ${alias}(${spec.columns.map((c) => id(c.name)).join(', ')}, ordinal)`;
}

/** Inserts `rows` (column name → value) in their order: new rows of an ordered table sort after all existing ones. */
export async function insertRows(client: Queryable, spec: TableSpec, rows: readonly object[]): Promise<void> {
  if (rows.length === 0) return;
  const names = spec.columns.map((c) => id(c.name)).join(', ');
  const values = spec.columns.map((c) => `v.${id(c.name)}`).join(', ');
  // In `ordinal` order, so that each row's default position is taken in the array's order.
  await client.query(
    `INSERT INTO ${id(spec.table)} (${names}) SELECT ${values} FROM ${recordset(spec, 'v')} ORDER BY v.ordinal`,
    [JSON.stringify(rows)],
  );
}

/** Updates the rows with the keys of `rows` to their values, every column but the key. */
export async function updateRows(client: Queryable, spec: TableSpec, rows: readonly object[]): Promise<void> {
  if (rows.length === 0) return;
  const set = spec.columns
    .filter((c) => c.name !== spec.key)
    .map((c) => `${id(c.name)} = v.${id(c.name)}`)
    .join(', ');
  await client.query(
    `UPDATE ${id(spec.table)} AS t SET ${set} FROM ${recordset(spec, 'v')} WHERE t.${id(spec.key)} = v.${id(spec.key)}`,
    [JSON.stringify(rows)],
  );
}

export async function deleteRows(client: Queryable, spec: TableSpec, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await client.query(`DELETE FROM ${id(spec.table)} WHERE ${id(spec.key)} = ANY($1::text[])`, [keys]);
}

/** Gives the rows with `keys` increasing positions in that order, after every position given so far. */
export async function renumber(client: Queryable, spec: TableSpec, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const { rows } = await client.query<{ p: string }>(
    "SELECT nextval('document_position')::text AS p FROM generate_series(1, $1::integer)",
    [keys.length],
  );
  const positions = rows.map((r) => BigInt(r.p)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  await client.query(
    `UPDATE ${id(spec.table)} AS t SET position = v.p FROM unnest($1::text[], $2::bigint[]) AS v(k, p) WHERE t.${id(spec.key)} = v.k`,
    [keys, positions.map(String)],
  );
}

/**
 * Writes the difference between two versions of one array: deleted rows first, then changed ones, then new ones (so
 * that a unique value moving from one record to another, such as the one active key of an account on regenerate,
 * is free before it is taken), then the order if it changed. Rows the `before` version did not hold are never touched.
 */
export async function writeDiff<R>(
  client: Queryable,
  spec: TableSpec,
  diff: RowDiff<R>,
  keyOf: (row: R) => string,
  toRow: (record: R) => object,
  after: readonly R[],
): Promise<void> {
  await deleteRows(client, spec, diff.deleted.map(keyOf));
  await updateRows(client, spec, diff.updated.map(toRow));
  await insertRows(client, spec, diff.inserted.map(toRow));
  if (spec.ordered && !diff.appendOnly) await renumber(client, spec, after.map(keyOf));
}

// Records as rows ---------------------------------------------------------------------------------------------------

/** A column that holds one field of a document's records. */
export interface FieldColumn extends Column {
  /** The record's property, where it is not named as the column (`hash` in `key_hash`). */
  field?: string;
  /** Whether the field may be null (a `timestamptz` or `date` column: null is written and read as null). */
  nullable?: boolean;
}

/** A table that holds one array of a document, a row per record, every column one field of the record. */
export interface RecordTableSpec extends TableSpec {
  columns: readonly FieldColumn[];
  /** What the records are, for the errors of timestampIn: `key` → "key created_at must be an ISO time…". */
  label: string;
}

/** A RecordTableSpec with the mapping between records and rows it implies. */
export interface RecordTable<R> extends RecordTableSpec {
  /** The columns, for a SELECT list: `id, email, …`. */
  readonly select: string;
  /** The row writeDiff writes for a record: times checked (timestampIn), fields under their columns' names. */
  toRow(record: R): Record<string, unknown>;
  /** The record of a row as read: times as ISO text (timestampOut), dates as YYYY-MM-DD (dateOut). */
  fromRow(row: Record<string, unknown>): R;
}

/** How a column's value is written (`in`, from the record) and read back (`out`, into the record). */
interface ValueCodec {
  in(value: unknown): unknown;
  out(value: unknown): unknown;
}

const asIs = (value: unknown) => value;

/** A column's ValueCodec, by its SQL type. */
function columnCodec(column: FieldColumn, label: string): ValueCodec {
  const what = `${label} ${column.field ?? column.name}`;
  switch (column.type) {
    case 'timestamptz':
      return column.nullable
        ? { in: (value) => nullableTimestampIn(value as string | null, what), out: nullableTimestampOut }
        : { in: (value) => timestampIn(value as string, what), out: timestampOut };
    case 'date':
      return { in: asIs, out: column.nullable ? nullableDateOut : dateOut };
    default:
      return { in: asIs, out: asIs };
  }
}

/**
 * The mapping of a table whose rows are a document's records, from its spec alone: the columns are listed once, and
 * the SELECT list, the rows written and the records read follow from them.
 */
export function recordTable<R>(spec: RecordTableSpec): RecordTable<R> {
  const columns = spec.columns.map((c) => ({ name: c.name, field: c.field ?? c.name, ...columnCodec(c, spec.label) }));
  return {
    ...spec,
    select: spec.columns.map((c) => c.name).join(', '),
    toRow(record) {
      const fields = record as Record<string, unknown>;
      return Object.fromEntries(columns.map((c) => [c.name, c.in(fields[c.field])]));
    },
    fromRow(row) {
      return Object.fromEntries(columns.map((c) => [c.field, c.out(row[c.name])])) as R;
    },
  };
}

// Times ------------------------------------------------------------------------------------------------------------

/**
 * An ISO timestamp as the documents hold them (`Date#toISOString`: UTC, milliseconds), checked before it is written:
 * a timestamptz column gives back exactly that text only for that form, so anything else is refused rather than
 * silently rewritten.
 */
export function timestampIn(value: string, field: string): string {
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString() !== value) {
    throw new Error(`${field} must be an ISO time in UTC with milliseconds (YYYY-MM-DDTHH:mm:ss.sssZ)`);
  }
  return value;
}

export function nullableTimestampIn(value: string | null, field: string): string | null {
  return value === null ? null : timestampIn(value, field);
}

/** A timestamptz value as read (a Date, or ISO text with the pool of database.ts) as the documents' ISO text. */
export function timestampOut(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return new Date(value).toISOString();
  throw new Error(`not a timestamp: ${typeof value}`);
}

export function nullableTimestampOut(value: unknown): string | null {
  return value === null || value === undefined ? null : timestampOut(value);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * A `date` value as YYYY-MM-DD: text with the pool of database.ts; a Date (node-postgres's default, midnight local
 * time) is read with local getters so that no time-zone offset shifts the day.
 */
export function dateOut(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) {
    return `${pad(value.getFullYear(), 4)}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`;
  }
  throw new Error(`not a date: ${typeof value}`);
}

export function nullableDateOut(value: unknown): string | null {
  return value === null || value === undefined ? null : dateOut(value);
}
