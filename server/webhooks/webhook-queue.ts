import { randomUUID } from 'node:crypto';
import type { WebhookPayload } from '../../shared/api/webhook';
import type { AlertBatch } from '../catchment/alert-events';
import type { DeliveryOutcome } from './deliver';
import type { DeliveryRecord, DeliverySummary, WebhookRecord } from './webhook-records';

/**
 * The delivery queue's rules, the same on every backend: what a batch of alerts becomes, when a delivery is due, and
 * what an attempt's outcome makes of it. The repositories (document-webhooks.ts, postgres-webhooks.ts) only store.
 */

/** When a failed delivery is tried again: after `firstDelayMs`, doubling, at most `maxDelayMs` apart, for `giveUpAfterMs`. */
export interface RetryPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
  /** Measured from the first attempt; the last attempt is made then, and if it fails the delivery has failed. */
  giveUpAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  firstDelayMs: 60_000,
  maxDelayMs: 3_600_000,
  giveUpAfterMs: 24 * 3_600_000,
};

/** A delivery a worker holds a lease on, with what it needs to send it. */
export interface Claim {
  id: string;
  subscriptionId: string;
  body: string;
  url: string;
  secret: string;
  attempt: number;
}

/** One attempt at a claimed delivery. */
export interface Attempt {
  claim: Claim;
  at: Date;
  outcome: DeliveryOutcome;
}

/** A delivery after an attempt: `retrying` ones stay queued, the others leave the queue. */
export interface Settled {
  delivery: DeliveryRecord;
  status: Exclude<DeliverySummary['status'], 'pending'>;
}

/** A new delivery for a webhook, and the cursor it moves the webhook to. */
export interface Queued {
  delivery: DeliveryRecord;
  /** The newest alert id in it: the webhook's new queued_through. */
  through: string;
}

/**
 * The delivery `batch` makes for `hook`: only the alerts after the newest queued (a catch-up and the live batch may
 * carry the same ones); null when none is left.
 */
export function queuedDelivery(
  hook: Pick<WebhookRecord, 'subscription_id' | 'queued_through'>,
  batch: AlertBatch,
  now: string,
): Queued | null {
  const after = hook.queued_through === null ? null : BigInt(hook.queued_through);
  const alerts = after === null ? batch.alerts : batch.alerts.filter((a) => BigInt(a.id) > after);
  if (alerts.length === 0) return null;
  const through = alerts.reduce((max, a) => (BigInt(a.id) > BigInt(max) ? a.id : max), alerts[0]!.id);
  const payload: WebhookPayload = { event: 'alerts', alerts };
  return {
    through,
    delivery: {
      id: randomUUID(),
      subscription_id: hook.subscription_id,
      body: JSON.stringify(payload),
      alert_count: alerts.length,
      created_at: now,
      attempts: 0,
      first_attempt_at: null,
      last_attempt_at: null,
      next_attempt_at: now,
      claimed_until: null,
      claimed_by: null,
      http_status: null,
      error: null,
    },
  };
}

/** Whether a worker may claim `d` at `nowMs`: its attempt is due and nobody's lease holds it. */
export function isDue(d: Pick<DeliveryRecord, 'next_attempt_at' | 'claimed_until'>, nowMs: number): boolean {
  return Date.parse(d.next_attempt_at) <= nowMs && (d.claimed_until === null || Date.parse(d.claimed_until) <= nowMs);
}

/** `d` after `attempt`: delivered, failed for good at the deadline, or retrying with back-off; its lease released. */
export function settle(d: DeliveryRecord, { at, outcome }: Attempt, retry: RetryPolicy): Settled {
  const atIso = at.toISOString();
  const next: DeliveryRecord = {
    ...d,
    attempts: d.attempts + 1,
    first_attempt_at: d.first_attempt_at ?? atIso,
    last_attempt_at: atIso,
    http_status: outcome.httpStatus,
    error: outcome.error,
    claimed_until: null,
    claimed_by: null,
  };
  const deadline = Date.parse(next.first_attempt_at!) + retry.giveUpAfterMs;
  if (outcome.ok) return { delivery: next, status: 'delivered' };
  if (at.getTime() >= deadline) return { delivery: next, status: 'failed' };
  const delay = Math.min(retry.firstDelayMs * 2 ** (next.attempts - 1), retry.maxDelayMs);
  // The last attempt is made at the deadline.
  next.next_attempt_at = new Date(Math.min(at.getTime() + delay, deadline)).toISOString();
  return { delivery: next, status: 'retrying' };
}

/** What GET /api/v1/webhook shows of `d` as the webhook's newest delivery. */
export function summaryOf(d: DeliveryRecord, status: DeliverySummary['status']): DeliverySummary {
  return {
    id: d.id,
    status,
    attempts: d.attempts,
    last_attempt_at: d.last_attempt_at,
    http_status: d.http_status,
    error: d.error,
    alert_count: d.alert_count,
  };
}
