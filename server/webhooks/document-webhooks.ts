import type { AlertBatch } from '../catchment/alert-events';
import type { WebhookFields, WebhookRepository } from './webhook-repository';
import {
  isDue,
  queuedDelivery,
  settle,
  summaryOf,
  type Attempt,
  type Claim,
  type RetryPolicy,
  type Settled,
} from './webhook-queue';
import type { DeliveryRecord, WebhookRecord, WebhookStore } from './webhook-records';

/** DATA_DIR/webhooks.json: the webhooks and their queue as one document, each change one update of it. */
export class DocumentWebhooks implements WebhookRepository {
  constructor(private readonly store: WebhookStore) {}

  async get(subscriptionId: string): Promise<WebhookRecord | null> {
    const hook = this.store.current.webhooks.find((w) => w.subscription_id === subscriptionId);
    return hook ? structuredClone(hook) : null;
  }

  put(subscriptionId: string, fields: WebhookFields, cursorIfNew: string | null): Promise<WebhookRecord> {
    return this.store.update((draft) => {
      let hook = draft.webhooks.find((w) => w.subscription_id === subscriptionId);
      if (hook) Object.assign(hook, fields);
      else {
        hook = { subscription_id: subscriptionId, ...fields, last_delivery: null, queued_through: cursorIfNew };
        draft.webhooks.push(hook);
      }
      return structuredClone(hook);
    });
  }

  remove(subscriptionId: string): Promise<boolean> {
    return this.store.update((draft) => {
      const before = draft.webhooks.length;
      draft.webhooks = draft.webhooks.filter((w) => w.subscription_id !== subscriptionId);
      if (draft.webhooks.length === before) return false;
      draft.deliveries = draft.deliveries.filter((d) => d.subscription_id !== subscriptionId);
      return true;
    });
  }

  async subscriptions(): Promise<string[]> {
    return this.store.current.webhooks.map((w) => w.subscription_id);
  }

  async cursors(): Promise<Pick<WebhookRecord, 'subscription_id' | 'queued_through'>[]> {
    return this.store.current.webhooks
      .filter((w) => w.queued_through !== null)
      .map(({ subscription_id, queued_through }) => ({ subscription_id, queued_through }));
  }

  enqueue(batches: readonly AlertBatch[], now: Date): Promise<number> {
    const at = now.toISOString();
    return this.store.update((draft) => {
      let count = 0;
      for (const batch of batches) {
        const hook = draft.webhooks.find((w) => w.subscription_id === batch.subscription_id);
        const queued = hook && queuedDelivery(hook, batch, at);
        if (!hook || !queued) continue;
        hook.queued_through = queued.through;
        hook.last_delivery = summaryOf(queued.delivery, 'pending');
        draft.deliveries.push(queued.delivery);
        count++;
      }
      return count;
    });
  }

  async claim(now: Date, limit: number, leaseMs: number, claimer: string): Promise<Claim[]> {
    const nowMs = now.getTime();
    // From memory first: most polls find nothing due and write nothing.
    if (!this.store.current.deliveries.some((d) => isDue(d, nowMs))) return [];
    return this.store.update((draft) => {
      const hooks = new Map(draft.webhooks.map((w) => [w.subscription_id, w]));
      // A delivery whose webhook is gone is dropped (remove() drops them too; this covers any left behind).
      draft.deliveries = draft.deliveries.filter((d) => hooks.has(d.subscription_id));
      const claims: Claim[] = [];
      for (const d of draft.deliveries) {
        if (claims.length >= limit) break;
        if (!isDue(d, nowMs)) continue;
        d.claimed_until = new Date(nowMs + leaseMs).toISOString();
        d.claimed_by = claimer;
        const hook = hooks.get(d.subscription_id)!;
        claims.push({
          id: d.id,
          subscriptionId: d.subscription_id,
          body: d.body,
          url: hook.url,
          secret: hook.secret,
          attempt: d.attempts + 1,
        });
      }
      return claims;
    });
  }

  record(attempts: readonly Attempt[], claimer: string, retry: RetryPolicy): Promise<Settled[]> {
    return this.store.update((draft) => {
      const settled: Settled[] = [];
      for (const attempt of attempts) {
        const index = draft.deliveries.findIndex((d) => d.id === attempt.claim.id);
        const d = draft.deliveries[index];
        if (!d || d.claimed_by !== claimer) continue;
        const after = settle(d, attempt, retry);
        if (after.status === 'retrying') draft.deliveries[index] = after.delivery;
        else draft.deliveries.splice(index, 1);
        const hook = draft.webhooks.find((w) => w.subscription_id === d.subscription_id);
        if (hook?.last_delivery?.id === d.id) hook.last_delivery = summaryOf(after.delivery, after.status);
        settled.push(after);
      }
      return settled;
    });
  }

  async queued(): Promise<DeliveryRecord[]> {
    return structuredClone(this.store.current.deliveries);
  }
}
