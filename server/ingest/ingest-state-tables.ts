import { nullableTimestampIn, nullableTimestampOut, type FieldColumn, type Queryable } from '../storage/postgres/rows';
import { IngestStateFile } from './ingest-state';
import type { TableCodec } from '../storage/document';

/**
 * The columns of the one row of `ingest_state` besides its `singleton` key (for the JSON import). The nullable ones
 * are null in a state never written, the others (arrays) empty.
 */
export const INGEST_STATE_COLUMNS: readonly FieldColumn[] = [
  { name: 'last_attempt_at', type: 'timestamptz', nullable: true },
  { name: 'last_success_at', type: 'timestamptz', nullable: true },
  { name: 'last_error', type: 'jsonb', nullable: true },
  { name: 'last_success_counts', type: 'jsonb', nullable: true },
  { name: 'unmatched_lga_names', type: 'jsonb' },
  { name: 'history', type: 'jsonb' },
];

/** A value for a jsonb parameter: node-postgres would send a JS array as a PostgreSQL array, not as JSON. */
const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/**
 * ingest-state.json as the one row of `ingest_state`: read and written whole, its nested parts as jsonb (whose key
 * order PostgreSQL does not keep; the schema puts the keys back in its order on load, as on every write).
 */
export const ingestStateCodec: TableCodec<IngestStateFile> = {
  async load(client: Queryable): Promise<IngestStateFile> {
    const { rows } = await client.query(
      `SELECT last_attempt_at, last_success_at, last_error, last_success_counts, unmatched_lga_names, history
       FROM ingest_state`,
    );
    const row = rows[0];
    return {
      last_attempt_at: nullableTimestampOut(row?.last_attempt_at),
      last_success_at: nullableTimestampOut(row?.last_success_at),
      last_error: row?.last_error ?? null,
      last_success_counts: row?.last_success_counts ?? null,
      unmatched_lga_names: row?.unmatched_lga_names ?? [],
      history: row?.history ?? [],
    };
  },

  async save(client: Queryable, _before: IngestStateFile, after: IngestStateFile): Promise<void> {
    await client.query(
      `INSERT INTO ingest_state AS s
         (singleton, last_attempt_at, last_success_at, last_error, last_success_counts, unmatched_lga_names, history)
       VALUES (true, $1::timestamptz, $2::timestamptz, $3::jsonb, $4::jsonb, $5::jsonb, $6::jsonb)
       ON CONFLICT (singleton) DO UPDATE SET
         last_attempt_at = EXCLUDED.last_attempt_at, last_success_at = EXCLUDED.last_success_at,
         last_error = EXCLUDED.last_error, last_success_counts = EXCLUDED.last_success_counts,
         unmatched_lga_names = EXCLUDED.unmatched_lga_names, history = EXCLUDED.history`,
      [
        nullableTimestampIn(after.last_attempt_at, 'ingest last_attempt_at'),
        nullableTimestampIn(after.last_success_at, 'ingest last_success_at'),
        json(after.last_error),
        json(after.last_success_counts),
        json(after.unmatched_lga_names),
        json(after.history),
      ],
    );
  },
};
