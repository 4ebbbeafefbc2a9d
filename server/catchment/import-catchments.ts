import type { PoolClient } from 'pg';
import { readStoreFile, type FeatureImporter } from '../storage/import/feature-importer';
import { step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { insertCounted } from '../storage/import/import-rows';
import { anyInserted } from '../storage/postgres/table-count';
import { emptyCatchments, type CatchmentsFile } from './catchment-records';
import { CATCHMENT_ALERTS, CATCHMENT_POSTCODE_STATES, CATCHMENTS, stateRows } from './postgres-catchment-store';
import { catchmentsDocument } from './catchments-document';

type CatchmentCounts = Pick<ImportCounts, 'catchments' | 'catchmentAlerts'>;

interface CatchmentImportCount extends CatchmentCounts {
  /** Whether the processed-refresh marker or the next alert id were moved forward. */
  metaUpdated: boolean;
}

/** catchments.json (see importCatchments); a DATA_DIR from before catchments has none. */
export const catchmentsImporter: FeatureImporter<CatchmentsFile, CatchmentCounts> = {
  document: catchmentsDocument.name,

  read: readStoreFile(catchmentsDocument, emptyCatchments()),

  async write(client, file) {
    const { catchments, catchmentAlerts, metaUpdated } = await step('catchments', () => importCatchments(client, file));
    return {
      counts: { catchments, catchmentAlerts },
      changed: anyInserted(catchments, catchmentAlerts) || metaUpdated,
    };
  },
};

/**
 * catchments.json into the tables of migrations 0004 and 0007, inside the import's transaction: catchments, postcode
 * states and alerts the database does not have yet (by subscription id, postcode and alert id; present ones are left
 * alone), the next alert id moved past every imported id, and the processed-refresh marker taken from the file when
 * the database has none or an older one.
 */
async function importCatchments(client: PoolClient, data: CatchmentsFile): Promise<CatchmentImportCount> {
  const catchments = await insertCounted(client, CATCHMENTS, data.catchments);
  // The states the file's baselines hold, for the postcodes the database has none of.
  await insertCounted(client, CATCHMENT_POSTCODE_STATES, stateRows(data.states));
  const catchmentAlerts = await insertCounted(client, CATCHMENT_ALERTS, data.alerts);
  const meta = await client.query(
    `UPDATE catchments_meta SET
       next_alert_id = GREATEST(next_alert_id, $1::bigint, COALESCE((SELECT max(id) + 1 FROM catchment_alerts), 1)),
       processed_refresh = CASE
         WHEN $2::text IS NOT NULL AND (processed_refresh IS NULL OR processed_refresh::timestamptz < $2::timestamptz)
         THEN $2::text ELSE processed_refresh END
     WHERE next_alert_id IS DISTINCT FROM GREATEST(next_alert_id, $1::bigint,
             COALESCE((SELECT max(id) + 1 FROM catchment_alerts), 1))
        OR ($2::text IS NOT NULL AND (processed_refresh IS NULL OR processed_refresh::timestamptz < $2::timestamptz))`,
    [data.next_alert_id, data.processed_refresh],
  );
  return {
    catchments,
    catchmentAlerts,
    metaUpdated: (meta.rowCount ?? 0) > 0,
  };
}
