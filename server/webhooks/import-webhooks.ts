import type { PoolClient } from 'pg';
import { tableCount, type TableCount } from '../storage/postgres/table-count';
import type { WebhooksFile } from './webhook-records';

export interface WebhookImportCount {
  webhooks: TableCount;
  deliveries: TableCount;
}

/**
 * The part of `npm run admin -- migrate-json-to-postgres` for DATA_DIR/webhooks.json (tables of migration 0005): the
 * webhooks, then their queued deliveries, in file order, each left alone when the database already has its key (a
 * subscription's webhook set there keeps its URL and secret). Claims of the JSON server are dropped: any instance may
 * send an imported delivery.
 */
export async function importWebhooks(client: PoolClient, file: WebhooksFile | null): Promise<WebhookImportCount> {
  const data = file ?? { webhooks: [], deliveries: [] };
  const webhooks = await client.query(
    `INSERT INTO webhooks (subscription_id, url, secret, created_at, last_delivery)
     SELECT r.subscription_id, r.url, r.secret, r.created_at, r.last_delivery
     FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (subscription_id text, url text, secret text,
       created_at timestamptz, last_delivery jsonb)) WITH ORDINALITY AS r(subscription_id, url, secret, created_at,
       last_delivery, n)
     ORDER BY r.n
     ON CONFLICT (subscription_id) DO NOTHING`,
    [JSON.stringify(data.webhooks)],
  );
  const deliveries = await client.query(
    `INSERT INTO webhook_deliveries (id, subscription_id, body, alert_count, created_at, attempts, first_attempt_at,
       last_attempt_at, next_attempt_at, claimed_until, claimed_by, http_status, error)
     SELECT r.id, r.subscription_id, r.body, r.alert_count, r.created_at, r.attempts, r.first_attempt_at,
       r.last_attempt_at, r.next_attempt_at, NULL, NULL, r.http_status, r.error
     FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (id text, subscription_id text, body text, alert_count integer,
       created_at timestamptz, attempts integer, first_attempt_at timestamptz, last_attempt_at timestamptz,
       next_attempt_at timestamptz, http_status integer, error text)) WITH ORDINALITY AS r(id, subscription_id, body,
       alert_count, created_at, attempts, first_attempt_at, last_attempt_at, next_attempt_at, http_status, error, n)
     ORDER BY r.n
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(data.deliveries)],
  );
  return {
    webhooks: tableCount(data.webhooks.length, webhooks.rowCount ?? 0),
    deliveries: tableCount(data.deliveries.length, deliveries.rowCount ?? 0),
  };
}
