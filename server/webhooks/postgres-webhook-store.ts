import { diffRows, recordTable, writeDiff, type Queryable } from '../storage/postgres/rows';
import { WebhooksFile, type DeliveryRecord, type WebhookRecord } from './webhook-records';
import type { TableCodec } from '../storage/document';

/** The table `webhooks` as webhook records (exported for the JSON import). */
export const WEBHOOKS = recordTable<WebhookRecord>({
  table: 'webhooks',
  label: 'webhook',
  key: 'subscription_id',
  ordered: true,
  columns: [
    { name: 'subscription_id', type: 'text' },
    { name: 'url', type: 'text' },
    { name: 'secret', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
    { name: 'last_delivery', type: 'jsonb' },
    { name: 'queued_through', type: 'text' },
  ],
});

/** The table `webhook_deliveries` as delivery records (exported for the JSON import). */
export const WEBHOOK_DELIVERIES = recordTable<DeliveryRecord>({
  table: 'webhook_deliveries',
  label: 'webhook delivery',
  key: 'id',
  ordered: true,
  columns: [
    { name: 'id', type: 'text' },
    { name: 'subscription_id', type: 'text' },
    { name: 'body', type: 'text' },
    { name: 'alert_count', type: 'integer' },
    { name: 'created_at', type: 'timestamptz' },
    { name: 'attempts', type: 'integer' },
    { name: 'first_attempt_at', type: 'timestamptz', nullable: true },
    { name: 'last_attempt_at', type: 'timestamptz', nullable: true },
    { name: 'next_attempt_at', type: 'timestamptz' },
    { name: 'claimed_until', type: 'timestamptz', nullable: true },
    { name: 'claimed_by', type: 'text' },
    { name: 'http_status', type: 'integer' },
    { name: 'error', type: 'text' },
  ],
});

const bySubscription = (w: WebhookRecord) => w.subscription_id;
const byId = (d: DeliveryRecord) => d.id;

/**
 * webhooks.json as the tables `webhooks` and `webhook_deliveries` (migration 0005). Deliveries are written after
 * webhooks when added and before them when removed, for the foreign key between them.
 */
export const webhooksCodec: TableCodec<WebhooksFile> = {
  async load(client: Queryable): Promise<WebhooksFile> {
    const webhooks = await client.query(`SELECT ${WEBHOOKS.select} FROM webhooks ORDER BY position, subscription_id`);
    const deliveries = await client.query(
      `SELECT ${WEBHOOK_DELIVERIES.select} FROM webhook_deliveries ORDER BY position, id`,
    );
    return {
      webhooks: webhooks.rows.map(WEBHOOKS.fromRow),
      deliveries: deliveries.rows.map(WEBHOOK_DELIVERIES.fromRow),
    };
  },

  async save(client: Queryable, before: WebhooksFile, after: WebhooksFile): Promise<void> {
    const deliveries = diffRows(before.deliveries, after.deliveries, byId);
    const webhooks = diffRows(before.webhooks, after.webhooks, bySubscription);
    // Deliveries gone first (their webhook may go too), then the webhooks, then the deliveries' other changes.
    await writeDiff(
      client,
      WEBHOOK_DELIVERIES,
      { inserted: [], updated: [], deleted: deliveries.deleted, appendOnly: true },
      byId,
      WEBHOOK_DELIVERIES.toRow,
      after.deliveries,
    );
    await writeDiff(client, WEBHOOKS, webhooks, bySubscription, WEBHOOKS.toRow, after.webhooks);
    await writeDiff(
      client,
      WEBHOOK_DELIVERIES,
      { ...deliveries, deleted: [] },
      byId,
      WEBHOOK_DELIVERIES.toRow,
      after.deliveries,
    );
  },
};
