import type { Database } from '../storage/postgres/database';
import { PostgresDocumentStore, type DocumentCodec } from '../storage/postgres/postgres-document-store';
import { nullableTimestampIn, nullableTimestampOut, type Queryable } from '../storage/postgres/rows';
import { IngestStateFile } from './ingest-state';

/** A value for a jsonb parameter: node-postgres would send a JS array as a PostgreSQL array, not as JSON. */
const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/**
 * ingest-state.json as the one row of `ingest_state`: read and written whole, its nested parts as jsonb (whose key
 * order PostgreSQL does not keep; the schema puts the keys back in its order on load, as on every write).
 */
export const ingestStateCodec: DocumentCodec<IngestStateFile> = {
  name: 'ingest_state',
  schema: IngestStateFile,

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

/**
 * The IngestStateStore in PostgreSQL (DATABASE_URL): what `openIngestStateStore` is for the JSON file, so that the
 * health endpoint of every instance reports the last refresh, whichever instance ran it.
 */
export function openPostgresIngestStateStore(db: Database): Promise<PostgresDocumentStore<IngestStateFile>> {
  return PostgresDocumentStore.open(db, ingestStateCodec);
}
