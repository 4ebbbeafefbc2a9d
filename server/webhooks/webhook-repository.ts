import type { AlertBatch } from '../catchment/alert-events';
import type { Attempt, Claim, RetryPolicy, Settled } from './webhook-queue';
import type { DeliveryRecord, WebhookRecord } from './webhook-records';

/** What `put` sets of a webhook. */
export type WebhookFields = Pick<WebhookRecord, 'url' | 'secret' | 'created_at'>;

/**
 * Where the webhooks and their delivery queue are kept: DATA_DIR/webhooks.json for a single practice's server (one
 * document, read from memory), or PostgreSQL's rows for every instance (each operation a few statements on the rows
 * it concerns; no instance holds the queue in memory). The rules are webhook-queue.ts's on both.
 */
export interface WebhookRepository {
  get(subscriptionId: string): Promise<WebhookRecord | null>;
  /**
   * Sets the webhook's URL, secret and time; a new one starts with `cursorIfNew` as its queued_through (deliveries
   * still queued for a replaced one stay, and go to the new URL with the new secret).
   */
  put(subscriptionId: string, fields: WebhookFields, cursorIfNew: string | null): Promise<WebhookRecord>;
  /** Removes the webhook and its queued deliveries; false when there was none. */
  remove(subscriptionId: string): Promise<boolean>;
  /** The subscriptions that have a webhook. */
  subscriptions(): Promise<string[]>;
  /** Every webhook's catch-up cursor (those that have one). */
  cursors(): Promise<Pick<WebhookRecord, 'subscription_id' | 'queued_through'>[]>;
  /**
   * Queues one delivery per batch for a subscription with a webhook (queuedDelivery), moving its cursor and its
   * last_delivery, all or nothing. Returns how many were queued.
   */
  enqueue(batches: readonly AlertBatch[], now: Date): Promise<number>;
  /** Leases up to `limit` due deliveries to `claimer` until now + `leaseMs`, oldest first; one worker gets each. */
  claim(now: Date, limit: number, leaseMs: number, claimer: string): Promise<Claim[]>;
  /**
   * Records the attempts (settle) of deliveries `claimer` still holds — one removed meanwhile or leased to another
   * since is left alone — and their webhooks' last_delivery. Returns what each recorded attempt made of its delivery.
   */
  record(attempts: readonly Attempt[], claimer: string, retry: RetryPolicy): Promise<Settled[]>;
  /** The deliveries still queued (pending or retrying), oldest first. */
  queued(): Promise<DeliveryRecord[]>;
}
