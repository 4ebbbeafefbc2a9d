import { z } from 'zod';
import type { DocumentStore } from '../storage/document-store';

const Time = z.string();

/** What GET /api/v1/webhook shows of the newest delivery (WebhookDelivery), with the delivery's id. */
export const DeliverySummary = z.object({
  id: z.string().min(1),
  status: z.enum(['pending', 'delivered', 'retrying', 'failed']),
  attempts: z.number().int().nonnegative(),
  last_attempt_at: Time.nullable(),
  http_status: z.number().int().nullable(),
  error: z.string().nullable(),
  alert_count: z.number().int().nonnegative(),
});
export type DeliverySummary = z.infer<typeof DeliverySummary>;

/** The one webhook of a subscription. The secret is a signing secret the receiver holds too: kept so deliveries can be signed. */
export const WebhookRecord = z.object({
  subscription_id: z.string().min(1),
  url: z.string().min(1),
  secret: z.string().min(1),
  created_at: Time,
  last_delivery: DeliverySummary.nullable(),
  /**
   * The id of the newest alert queued for it (null: none seen yet). Alerts are committed before they are queued
   * here; after a crash in between, `catchUp` at start queues whatever came after this, and nothing twice.
   */
  queued_through: z
    .string()
    .regex(/^[0-9]+$/)
    .nullable()
    .default(null),
});
export type WebhookRecord = z.infer<typeof WebhookRecord>;

/**
 * A delivery still to make: one batch of alerts, its body fixed at enqueue time (the signature covers exactly these
 * bytes). Delivered and failed deliveries leave the queue; what GET shows of them is their webhook's last_delivery.
 */
export const DeliveryRecord = z.object({
  id: z.string().min(1),
  subscription_id: z.string().min(1),
  body: z.string(),
  alert_count: z.number().int().nonnegative(),
  created_at: Time,
  attempts: z.number().int().nonnegative(),
  first_attempt_at: Time.nullable(),
  last_attempt_at: Time.nullable(),
  next_attempt_at: Time,
  /** A worker's lease: until then, no other worker (in any instance) sends it. */
  claimed_until: Time.nullable(),
  claimed_by: z.string().nullable(),
  http_status: z.number().int().nullable(),
  error: z.string().nullable(),
});
export type DeliveryRecord = z.infer<typeof DeliveryRecord>;

export const WebhooksFile = z.object({
  webhooks: z.array(WebhookRecord),
  deliveries: z.array(DeliveryRecord),
});
export type WebhooksFile = z.infer<typeof WebhooksFile>;

/** Where webhooks and their delivery queue are kept: what WebhookService depends on. */
export type WebhookStore = DocumentStore<WebhooksFile>;
