import type { PoolClient } from 'pg';
import { readStoreFile, type FeatureImporter } from '../storage/import/feature-importer';
import { step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { insertCounted, insertNewRows } from '../storage/import/import-rows';
import { anyInserted, tableCount } from '../storage/postgres/table-count';
import { emptyCatchments, type CatchmentsFile } from './catchment-records';
import {
  CATCHMENT_ALERTS,
  CATCHMENT_ENTRIES,
  CATCHMENT_POSTCODE_STATES,
  CATCHMENTS,
  entryRows,
  stateRows,
} from './catchment-tables';
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

  async write(client, file, skips) {
    // The catchment of a subscription left out goes with it.
    const kept = {
      ...file,
      catchments: file.catchments.filter((c) => !skips.isLeftOut('subscription', c.subscription_id)),
    };
    const { catchments, catchmentAlerts, metaUpdated } = await step('catchments', () => importCatchments(client, kept));
    return {
      counts: { catchments, catchmentAlerts },
      changed: anyInserted(catchments, catchmentAlerts) || metaUpdated,
    };
  },
};

/**
 * catchments.json into the tables of migrations 0004, 0007 and 0008, inside the import's transaction: catchments
 * (with their entries), postcode states and alerts the database does not have yet (by subscription id, postcode and alert id; present ones are left
 * alone), the next alert id moved past every imported id, and the processed-refresh marker taken from the file when
 * the database has none or an older one.
 */
async function importCatchments(client: PoolClient, data: CatchmentsFile): Promise<CatchmentImportCount> {
  const added = new Set(
    await insertNewRows(
      client,
      CATCHMENTS,
      data.catchments.map(({ subscription_id, updated_at }) => ({ subscription_id, updated_at })),
    ),
  );
  // A catchment the database already had keeps its entries: only the new catchments' go in.
  await insertNewRows(
    client,
    CATCHMENT_ENTRIES,
    entryRows(data.catchments.filter((c) => added.has(c.subscription_id))),
  );
  const catchments = tableCount(data.catchments.length, added.size);
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
