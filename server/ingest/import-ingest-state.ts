import type { PoolClient } from 'pg';
import { readStoreFile, type FeatureImporter } from '../storage/import/feature-importer';
import { step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import type { FieldColumn } from '../storage/postgres/rows';
import { type IngestStateFile } from './ingest-state';
import { INGEST_STATE_COLUMNS } from './ingest-state-tables';
import { ingestStateDocument } from './ingest-state-document';

/**
 * ingest-state.json into the one row of `ingest_state`, only into a database whose ingest state is still empty (as
 * the migration created it): a database that has run an ingest keeps its own history.
 */
export const ingestStateImporter: FeatureImporter<IngestStateFile | null, Pick<ImportCounts, 'ingestState'>> = {
  document: ingestStateDocument.name,

  read: readStoreFile(ingestStateDocument, null),

  async write(client, state) {
    const ingestState = await step('ingest state', () => updateIngestState(client, state));
    return { counts: { ingestState }, changed: ingestState.imported };
  },
};

/** The file's value of a column. */
const valueOf = (state: IngestStateFile, column: FieldColumn) =>
  state[(column.field ?? column.name) as keyof IngestStateFile];

/** Whether the state is all defaults, as the migration creates the row: the nullable columns null, the others empty. */
function isEmptyIngestState(state: IngestStateFile): boolean {
  return INGEST_STATE_COLUMNS.every((c) => {
    const value = valueOf(state, c);
    return c.nullable ? value === null : (value as readonly unknown[]).length === 0;
  });
}

const names = INGEST_STATE_COLUMNS.map((c) => c.name);
const stillEmpty = INGEST_STATE_COLUMNS.map((c) => (c.nullable ? `s.${c.name} IS NULL` : `s.${c.name} = '[]'::jsonb`));

// The row is written only while every column holds what the migration put there: null, or an empty array.
const UPSERT_SQL = `INSERT INTO ingest_state AS s (singleton, ${names.join(', ')})
   VALUES (true, ${INGEST_STATE_COLUMNS.map((c, i) => `$${i + 1}::${c.type}`).join(', ')})
   ON CONFLICT (singleton) DO UPDATE SET ${names.map((name) => `${name} = EXCLUDED.${name}`).join(', ')}
    WHERE ${stillEmpty.join(' AND ')}`;

/** The file's ingest state, into a database whose ingest state is still empty (as the migration created it). */
async function updateIngestState(
  client: PoolClient,
  state: IngestStateFile | null,
): Promise<ImportCounts['ingestState']> {
  if (state === null || isEmptyIngestState(state)) return { inDataDir: false, imported: false };
  // A jsonb parameter as JSON text: node-postgres would send a JS array as a PostgreSQL array.
  const values = INGEST_STATE_COLUMNS.map((c) => {
    const value = valueOf(state, c);
    return c.type === 'jsonb' && value !== null ? JSON.stringify(value) : value;
  });
  const { rowCount } = await client.query(UPSERT_SQL, values);
  return { inDataDir: true, imported: (rowCount ?? 0) > 0 };
}
