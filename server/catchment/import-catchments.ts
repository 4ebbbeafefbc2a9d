import type { PoolClient } from 'pg';
import { tableCount, type TableCount } from '../storage/postgres/table-count';
import { emptyCatchments, type CatchmentsFile } from './catchment-records';
import { stateRows } from './postgres-catchment-store';

export interface CatchmentImportCount {
  catchments: TableCount;
  alerts: TableCount;
  /** Whether the processed-refresh marker or the next alert id were moved forward. */
  metaUpdated: boolean;
}

/**
 * catchments.json into the tables of migrations 0004 and 0007, inside the import's transaction: catchments, postcode
 * states and alerts the
 * database does not have yet (by subscription id and alert id; present ones are left alone), the next alert id moved
 * past every imported id, and the processed-refresh marker taken from the file when the database has none or an
 * older one.
 */
export async function importCatchments(client: PoolClient, file: CatchmentsFile | null): Promise<CatchmentImportCount> {
  const data = file ?? emptyCatchments();
  const catchments = await client.query(
    `INSERT INTO catchments (subscription_id, postcodes, updated_at, pending)
     SELECT subscription_id, postcodes, updated_at, pending
     FROM jsonb_to_recordset($1::jsonb) AS r(subscription_id text, postcodes text[], updated_at timestamptz, pending text[])
     ON CONFLICT (subscription_id) DO NOTHING`,
    [JSON.stringify(data.catchments)],
  );
  // The states the file's baselines hold, for the postcodes the database has none of.
  await client.query(
    `INSERT INTO catchment_postcode_states (postcode, is_eligible, active_agrns)
     SELECT postcode, is_eligible, active_agrns
     FROM jsonb_to_recordset($1::jsonb) AS r(postcode text, is_eligible boolean, active_agrns text[])
     ON CONFLICT (postcode) DO NOTHING`,
    [JSON.stringify(stateRows(data.states))],
  );
  const alerts = await client.query(
    `INSERT INTO catchment_alerts (id, subscription_id, created_at, kind, postcode, lga_name, agrn, title, text)
     SELECT id, subscription_id, created_at, kind, postcode, lga_name, agrn, title, text
     FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, subscription_id text, created_at timestamptz, kind text,
       postcode text, lga_name text, agrn text, title text, text text)
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(data.alerts)],
  );
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
    catchments: tableCount(data.catchments.length, catchments.rowCount ?? 0),
    alerts: tableCount(data.alerts.length, alerts.rowCount ?? 0),
    metaUpdated: (meta.rowCount ?? 0) > 0,
  };
}
