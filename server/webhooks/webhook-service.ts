import { randomUUID } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import type { Alert } from '../../shared/api/alerts';
import type { NewWebhookData, WebhookData, WebhookPayload } from '../../shared/api/webhook';
import type { Logger } from '../logger';
import { checkWebhookUrl } from './address-guard';
import { deliver, DELIVERY_TIMEOUT_MS, type DeliveryOutcome } from './deliver';
import { newWebhookSecret, signatureOf } from './signing';
import type { DeliveryRecord, DeliverySummary, WebhookRecord, WebhookStore } from './webhook-records';

/** The alerts one refresh produced for one subscription (what server/alerts announces). */
export interface WebhookAlertBatch {
  subscription_id: string;
  alerts: Alert[];
}

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

/** What a test (or the runtime) may set; the rest has production defaults. */
export interface WebhookTuning {
  retry?: Partial<RetryPolicy>;
  /** How often the worker looks for due deliveries (default 1 s; a new batch is sent at once regardless). */
  pollIntervalMs?: number;
  /** Deliveries sent at once by this process (default 4). */
  concurrency?: number;
  /** How long a claim keeps other workers off a delivery (default 60 s: longer than any attempt). */
  leaseMs?: number;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** The resolver used for guarded deliveries (default: the system's). */
  lookup?: LookupFunction;
}

/** Where the alerts are kept (AlertsService): what a webhook catches up from, and hears new batches from. */
export interface AlertSource {
  /** The subscription's alerts after `since` (all kept when absent), oldest first. */
  list(subscriptionId: string, since?: string): Promise<readonly Alert[]>;
  /** Calls `listener` with each committed batch of new alerts; returns a function that unsubscribes. */
  onAlerts(listener: (batches: readonly WebhookAlertBatch[]) => void, wanted?: () => Iterable<string>): () => void;
}

export interface WebhookServiceOptions extends WebhookTuning {
  store: WebhookStore;
  clock: () => Date;
  logger: Logger;
  /** WEBHOOK_ALLOW_PRIVATE_ADDRESSES. */
  allowPrivateAddresses: boolean;
  /**
   * The alerts to deliver: each committed batch is queued at once, and what a stop between committing and queuing
   * left unqueued is queued when the worker starts (`catchUp`).
   */
  alerts?: AlertSource;
}

export const WEBHOOK_USER_AGENT = 'disaster-telehealth-eligibility-webhooks/1.0';

export class WebhookError extends Error {
  constructor(
    readonly code: 'invalid_webhook_url',
    message: string,
  ) {
    super(message);
    this.name = 'WebhookError';
  }
}

/** A delivery this worker holds a lease on, with what it needs to send it. */
interface Claim {
  id: string;
  subscriptionId: string;
  body: string;
  url: string;
  secret: string;
  attempt: number;
}

interface AttemptResult {
  claim: Claim;
  at: Date;
  outcome: DeliveryOutcome;
}

const iso = (ms: number) => new Date(ms).toISOString();

function publicView(record: WebhookRecord): WebhookData {
  const last = record.last_delivery;
  return {
    url: record.url,
    created_at: record.created_at,
    last_delivery: last && {
      status: last.status,
      attempts: last.attempts,
      last_attempt_at: last.last_attempt_at,
      http_status: last.http_status,
      error: last.error,
      alert_count: last.alert_count,
    },
  };
}

/**
 * The webhook of each subscription and the delivery of new alerts to it.
 *
 * Each batch of alerts becomes one delivery with a fixed body, queued in the store (webhooks.json, or PostgreSQL), so
 * that it survives a restart. A worker (start/stop) sends due deliveries: it claims them in one update of the store
 * (a lease, claimed_until), so with several instances on one store each delivery is sent by one of them; sends at
 * most `concurrency` at once; and records the outcome in another update. A failed attempt is retried with back-off
 * (RetryPolicy) until a day after the first attempt, then the delivery has failed. Each request is signed with the
 * webhook's current secret: `X-Signature: sha256=<hex HMAC-SHA256 of the body>`.
 */
export class WebhookService {
  readonly instanceId = randomUUID();
  private readonly retry: RetryPolicy;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private again = false;
  private stopped = false;
  constructor(private readonly options: WebhookServiceOptions) {
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    // Each committed batch of alerts becomes a delivery, queued in the store and sent by the worker (queuing goes on
    // while the worker is stopped: the deliveries wait in the store).
    options.alerts?.onAlerts(
      (batches) => {
        this.enqueueAlerts(batches).catch((err: unknown) =>
          options.logger.error({ err }, 'could not queue webhook deliveries'),
        );
      },
      // Only the subscriptions with a webhook: a national refresh's other alerts stay in the store.
      () => this.store.current.webhooks.map((w) => w.subscription_id),
    );
  }

  get store(): WebhookStore {
    return this.options.store;
  }

  /** The subscription's webhook as GET shows it (never the secret), or null when none is set. */
  get(subscriptionId: string): WebhookData | null {
    const record = this.store.current.webhooks.find((w) => w.subscription_id === subscriptionId);
    return record ? publicView(record) : null;
  }

  /**
   * Sets (or replaces) the subscription's webhook with a new secret, returned this once. Throws WebhookError for a
   * URL that is not an http(s) URL to a public address. Deliveries still queued go to the new URL, signed with the
   * new secret.
   */
  async set(subscriptionId: string, url: string): Promise<NewWebhookData> {
    const checked = checkWebhookUrl(url, this.options.allowPrivateAddresses);
    if (!checked.ok) throw new WebhookError('invalid_webhook_url', checked.reason);
    const secret = newWebhookSecret();
    const now = this.options.clock().toISOString();
    // A new webhook gets the alerts from now on, not the ones kept from before.
    const kept = this.options.alerts ? await this.options.alerts.list(subscriptionId) : [];
    const record = await this.store.update((draft) => {
      let hook = draft.webhooks.find((w) => w.subscription_id === subscriptionId);
      if (hook) Object.assign(hook, { url: checked.url.href, secret, created_at: now });
      else {
        hook = {
          subscription_id: subscriptionId,
          url: checked.url.href,
          secret,
          created_at: now,
          last_delivery: null,
          queued_through: this.options.alerts ? (kept.at(-1)?.id ?? '0') : null,
        };
        draft.webhooks.push(hook);
      }
      return structuredClone(hook);
    });
    return { ...publicView(record), secret };
  }

  /** Removes the subscription's webhook and its queued deliveries; false when it had none. */
  remove(subscriptionId: string): Promise<boolean> {
    return this.store.update((draft) => {
      const before = draft.webhooks.length;
      draft.webhooks = draft.webhooks.filter((w) => w.subscription_id !== subscriptionId);
      if (draft.webhooks.length === before) return false;
      draft.deliveries = draft.deliveries.filter((d) => d.subscription_id !== subscriptionId);
      return true;
    });
  }

  /**
   * Queues one delivery per batch whose subscription has a webhook (batches without alerts, or for subscriptions
   * without a webhook, are dropped) and has the worker send them at once. Returns how many were queued.
   */
  async enqueueAlerts(batches: readonly WebhookAlertBatch[]): Promise<number> {
    const wanted = batches.filter((b) => b.alerts.length > 0);
    if (wanted.length === 0) return 0;
    const now = this.options.clock().toISOString();
    const queued = await this.store.update((draft) => {
      let count = 0;
      for (const batch of wanted) {
        const hook = draft.webhooks.find((w) => w.subscription_id === batch.subscription_id);
        if (!hook) continue;
        // Only alerts after the newest queued: a catch-up and the live batch may carry the same ones.
        const through = hook.queued_through === null ? null : BigInt(hook.queued_through);
        const alerts = through === null ? batch.alerts : batch.alerts.filter((a) => BigInt(a.id) > through);
        if (alerts.length === 0) continue;
        hook.queued_through = alerts.reduce((max, a) => (BigInt(a.id) > BigInt(max) ? a.id : max), alerts[0]!.id);
        const payload: WebhookPayload = { event: 'alerts', alerts };
        const delivery: DeliveryRecord = {
          id: randomUUID(),
          subscription_id: batch.subscription_id,
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
        };
        draft.deliveries.push(delivery);
        hook.last_delivery = summaryOf(delivery, 'pending');
        count++;
      }
      return count;
    });
    if (queued > 0) this.kick();
    return queued;
  }

  /**
   * Queues, for every webhook with a cursor, the alerts committed after it: those whose delivery was never queued
   * because the process stopped between committing them and queuing them. Returns how many deliveries were queued.
   */
  async catchUp(): Promise<number> {
    const source = this.options.alerts;
    if (!source) return 0;
    const batches: WebhookAlertBatch[] = [];
    for (const hook of this.store.current.webhooks) {
      if (hook.queued_through === null) continue;
      const alerts = await source.list(hook.subscription_id, hook.queued_through);
      if (alerts.length > 0) batches.push({ subscription_id: hook.subscription_id, alerts: [...alerts] });
    }
    return this.enqueueAlerts(batches);
  }

  /** Starts the worker: every pollIntervalMs, and whenever a batch is queued here. stop() ends it. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.catchUp().catch((err: unknown) =>
      this.options.logger.error({ err }, 'could not queue the alerts webhooks missed while stopped'),
    );
    this.timer = setInterval(() => this.kick(), this.pollIntervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Stops the worker and waits for the attempts under way (at most one attempt's timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.chain.catch(() => undefined);
  }

  /**
   * Sends every delivery due now (by the clock), in rounds of `concurrency`, and records the outcomes; resolves with
   * the number of attempts made. The worker calls this; tests call it after moving their clock.
   */
  runDue(): Promise<number> {
    const run = this.chain.then(() => this.drain());
    this.chain = run.catch(() => undefined);
    return run;
  }

  private kick(): void {
    if (this.stopped || !this.timer) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.runDue()
      .catch((err: unknown) => this.options.logger.error({ err }, 'webhook delivery worker failed'))
      .finally(() => {
        this.busy = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async drain(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const claims = await this.claim();
      if (claims.length === 0) break;
      const results = await Promise.all(claims.map((claim) => this.attempt(claim)));
      await this.record(results);
      attempts += claims.length;
      if (claims.length < this.concurrency || this.stopped) break;
    }
    return attempts;
  }

  private isDue(d: DeliveryRecord, nowMs: number): boolean {
    return Date.parse(d.next_attempt_at) <= nowMs && (d.claimed_until === null || Date.parse(d.claimed_until) <= nowMs);
  }

  /** Takes a lease on up to `concurrency` due deliveries, in one update of the store. */
  private async claim(): Promise<Claim[]> {
    const nowMs = this.options.clock().getTime();
    // From memory first: most polls find nothing due and write nothing.
    if (!this.store.current.deliveries.some((d) => this.isDue(d, nowMs))) return [];
    return this.store.update((draft) => {
      const hooks = new Map(draft.webhooks.map((w) => [w.subscription_id, w]));
      // A delivery whose webhook is gone is dropped (remove() drops them too; this covers any left behind).
      draft.deliveries = draft.deliveries.filter((d) => hooks.has(d.subscription_id));
      const claims: Claim[] = [];
      for (const d of draft.deliveries) {
        if (claims.length >= this.concurrency) break;
        if (!this.isDue(d, nowMs)) continue;
        d.claimed_until = iso(nowMs + this.leaseMs);
        d.claimed_by = this.instanceId;
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

  private async attempt(claim: Claim): Promise<AttemptResult> {
    const at = this.options.clock();
    const outcome = await deliver({
      url: claim.url,
      body: claim.body,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': WEBHOOK_USER_AGENT,
        'X-Delivery-Id': claim.id,
        'X-Delivery-Attempt': String(claim.attempt),
        'X-Signature': signatureOf(claim.secret, claim.body),
      },
      allowPrivate: this.options.allowPrivateAddresses,
      timeoutMs: this.options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      lookup: this.options.lookup,
    });
    return { claim, at, outcome };
  }

  /** Records the outcomes of a round in one update: delivered and failed deliveries leave the queue. */
  private async record(results: AttemptResult[]): Promise<void> {
    const logged: { level: 'info' | 'warn'; fields: object; message: string }[] = [];
    await this.store.update((draft) => {
      logged.length = 0;
      for (const { claim, at, outcome } of results) {
        const index = draft.deliveries.findIndex((d) => d.id === claim.id);
        const d = draft.deliveries[index];
        // Removed meanwhile (webhook deleted), or our lease ran out and another worker holds it now.
        if (!d || d.claimed_by !== this.instanceId) continue;
        const atIso = at.toISOString();
        d.attempts += 1;
        d.first_attempt_at ??= atIso;
        d.last_attempt_at = atIso;
        d.http_status = outcome.httpStatus;
        d.error = outcome.error;
        d.claimed_until = null;
        d.claimed_by = null;
        const deadline = Date.parse(d.first_attempt_at) + this.retry.giveUpAfterMs;
        let status: DeliverySummary['status'];
        if (outcome.ok) status = 'delivered';
        else if (at.getTime() >= deadline) status = 'failed';
        else {
          status = 'retrying';
          const delay = Math.min(this.retry.firstDelayMs * 2 ** (d.attempts - 1), this.retry.maxDelayMs);
          // The last attempt is made at the deadline.
          d.next_attempt_at = iso(Math.min(at.getTime() + delay, deadline));
        }
        if (status !== 'retrying') draft.deliveries.splice(index, 1);
        const hook = draft.webhooks.find((w) => w.subscription_id === d.subscription_id);
        if (hook?.last_delivery?.id === d.id) hook.last_delivery = summaryOf(d, status);
        const fields = {
          subscription_id: d.subscription_id,
          delivery_id: d.id,
          attempt: d.attempts,
          http_status: d.http_status,
          error: d.error,
          status,
        };
        const message = {
          delivered: 'webhook delivered',
          failed: 'webhook delivery failed for good',
          retrying: 'webhook delivery failed; will retry',
          pending: 'webhook delivery pending',
        }[status];
        logged.push({ level: status === 'failed' ? 'warn' : 'info', fields, message });
      }
    });
    for (const { level, fields, message } of logged) this.options.logger[level](fields, message);
  }
}

function summaryOf(d: DeliveryRecord, status: DeliverySummary['status']): DeliverySummary {
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
