import { randomUUID } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import type { Alert } from '../../shared/api/alerts';
import type { NewWebhookData, WebhookData, WebhookPayload, WebhookTestData } from '../../shared/api/webhook';
import type { AlertBatch, WantedSubscriptions } from '../catchment/alert-events';
import { ContractError } from '../contract-error';
import type { Logger } from '../logger';
import { checkWebhookUrl } from './address-guard';
import { deliver, DELIVERY_TIMEOUT_MS } from './deliver';
import { newWebhookSecret, signatureOf } from './signing';
import { DEFAULT_RETRY_POLICY, type Attempt, type Claim, type RetryPolicy, type Settled } from './webhook-queue';
import type { DeliveryRecord, WebhookRecord } from './webhook-records';
import type { WebhookRepository } from './webhook-repository';

export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './webhook-queue';

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
  onAlerts(listener: (batches: readonly AlertBatch[]) => void, wanted?: WantedSubscriptions): () => void;
}

export interface WebhookServiceOptions extends WebhookTuning {
  repository: WebhookRepository;
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
 * Each batch of alerts becomes one delivery with a fixed body, queued in the repository (webhooks.json, or
 * PostgreSQL's rows), so that it survives a restart. A worker (start/stop) sends due deliveries: it leases them
 * (claimed_until), so with several instances on one database each delivery is sent by one of them; sends at most
 * `concurrency` at once; and records the outcomes. A failed attempt is retried with back-off (RetryPolicy) until a day
 * after the first attempt, then the delivery has failed. Each request is signed with the webhook's current secret:
 * `X-Signature: sha256=<hex HMAC-SHA256 of the body>`.
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
    // Each committed batch of alerts becomes a delivery, queued in the repository and sent by the worker (queuing
    // goes on while the worker is stopped: the deliveries wait there).
    options.alerts?.onAlerts(
      (batches) => {
        this.enqueueAlerts(batches).catch((err: unknown) =>
          options.logger.error({ err }, 'could not queue webhook deliveries'),
        );
      },
      // Only the subscriptions with a webhook: a national refresh's other alerts stay in the store.
      () => this.repository.subscriptions(),
    );
  }

  private get repository(): WebhookRepository {
    return this.options.repository;
  }

  /** The subscription's webhook as GET shows it (never the secret), or null when none is set. */
  async get(subscriptionId: string): Promise<WebhookData | null> {
    const record = await this.repository.get(subscriptionId);
    return record ? publicView(record) : null;
  }

  /** The deliveries still queued (pending or retrying), oldest first. */
  queued(): Promise<DeliveryRecord[]> {
    return this.repository.queued();
  }

  /**
   * Sets (or replaces) the subscription's webhook with a new secret, returned this once. Throws the contract's invalid_webhook_url for a
   * URL that is not an http(s) URL to a public address. Deliveries still queued go to the new URL, signed with the
   * new secret.
   */
  async set(subscriptionId: string, url: string): Promise<NewWebhookData> {
    const checked = checkWebhookUrl(url, this.options.allowPrivateAddresses);
    if (!checked.ok) throw new ContractError('invalid_webhook_url', { cause: checked.reason });
    const secret = newWebhookSecret();
    const created_at = this.options.clock().toISOString();
    // A new webhook gets the alerts from now on, not the ones kept from before.
    const kept = this.options.alerts ? await this.options.alerts.list(subscriptionId) : [];
    const cursor = this.options.alerts ? (kept.at(-1)?.id ?? '0') : null;
    const record = await this.repository.put(subscriptionId, { url: checked.url.href, secret, created_at }, cursor);
    return { ...publicView(record), secret };
  }

  /**
   * Sends one signed `test` delivery to the subscription's webhook now (no alerts; not queued, not retried, not its
   * last delivery) and says how it went; null when no webhook is set. For "send test" in the console.
   */
  async sendTest(subscriptionId: string): Promise<WebhookTestData | null> {
    const hook = await this.repository.get(subscriptionId);
    if (!hook) return null;
    const body = JSON.stringify({ event: 'test', alerts: [] } satisfies WebhookPayload);
    const id = randomUUID();
    const { claim, outcome } = await this.attempt({
      id,
      subscriptionId,
      body,
      url: hook.url,
      secret: hook.secret,
      attempt: 1,
    });
    this.options.logger.info(
      { subscription_id: claim.subscriptionId, delivery_id: id, http_status: outcome.httpStatus, error: outcome.error },
      outcome.ok ? 'webhook test delivered' : 'webhook test failed',
    );
    return { delivered: outcome.ok, http_status: outcome.httpStatus, error: outcome.error };
  }

  /** Removes the subscription's webhook and its queued deliveries; false when it had none. */
  remove(subscriptionId: string): Promise<boolean> {
    return this.repository.remove(subscriptionId);
  }

  /**
   * Queues one delivery per batch whose subscription has a webhook (batches without alerts, or for subscriptions
   * without a webhook, are dropped) and has the worker send them at once. Returns how many were queued.
   */
  async enqueueAlerts(batches: readonly AlertBatch[]): Promise<number> {
    const wanted = batches.filter((b) => b.alerts.length > 0);
    if (wanted.length === 0) return 0;
    const queued = await this.repository.enqueue(wanted, this.options.clock());
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
    const batches: AlertBatch[] = [];
    for (const hook of await this.repository.cursors()) {
      const alerts = await source.list(hook.subscription_id, hook.queued_through ?? undefined);
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
      const claims = await this.repository.claim(this.options.clock(), this.concurrency, this.leaseMs, this.instanceId);
      if (claims.length === 0) break;
      const results = await Promise.all(claims.map((claim) => this.attempt(claim)));
      this.log(await this.repository.record(results, this.instanceId, this.retry));
      attempts += claims.length;
      if (claims.length < this.concurrency || this.stopped) break;
    }
    return attempts;
  }

  private async attempt(claim: Claim): Promise<Attempt> {
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

  private log(settled: readonly Settled[]): void {
    for (const { delivery: d, status } of settled) {
      const fields = {
        subscription_id: d.subscription_id,
        delivery_id: d.id,
        attempt: d.attempts,
        http_status: d.http_status,
        error: d.error,
        status,
      };
      if (status === 'failed') this.options.logger.warn(fields, 'webhook delivery failed for good');
      else if (status === 'delivered') this.options.logger.info(fields, 'webhook delivered');
      else this.options.logger.info(fields, 'webhook delivery failed; will retry');
    }
  }
}
