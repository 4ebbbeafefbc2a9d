import type { StoredAlert } from '../../server/catchment/catchment-records';
import { DocumentCatchments } from '../../server/catchment/document-catchments';
import type { ServerRuntime } from '../../server/runtime';
import { inTransaction } from '../../server/storage/postgres/transaction';

/**
 * Commits an alert the way processing a refresh does, without announcing it (a process stopped between committing and
 * queuing): into the document on the JSON backend, into the alert rows (with the next id) on PostgreSQL.
 */
export async function recordAlertDirectly(runtime: ServerRuntime, alert: Omit<StoredAlert, 'id'>): Promise<string> {
  const repository = runtime.catchments.repository;
  if (repository instanceof DocumentCatchments) {
    return repository.store.update((draft) => {
      const id = String(draft.next_alert_id++);
      draft.alerts.push({ ...alert, id });
      return id;
    });
  }
  return inTransaction(runtime.database!.pool, async (client) => {
    const { rows } = await client.query<{ id: string }>(
      'SELECT next_alert_id::text AS id FROM catchments_meta WHERE singleton FOR UPDATE',
    );
    const id = rows[0]!.id;
    await client.query(
      `INSERT INTO catchment_alerts (id, subscription_id, created_at, kind, postcode, lga_name, agrn, title, text)
       VALUES ($1::bigint, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        alert.subscription_id,
        alert.created_at,
        alert.kind,
        alert.postcode,
        alert.lga_name,
        alert.agrn,
        alert.title,
        alert.text,
      ],
    );
    await client.query('UPDATE catchments_meta SET next_alert_id = $1::bigint + 1 WHERE singleton', [id]);
    return id;
  });
}
