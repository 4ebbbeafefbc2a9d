import { recordTable } from '../storage/postgres/rows';
import type { DeliveryRecord, WebhookRecord } from './webhook-records';

/*
 * The webhook tables (migrations 0005, 0006) as record tables: what PostgresWebhooks reads and writes
 * (postgres-webhooks.ts), and the JSON import fills.
 */

/** The table `webhooks` as webhook records. */
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

/** The table `webhook_deliveries` as delivery records. */
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
