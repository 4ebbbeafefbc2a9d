import type { BillingJobDeps } from './subscription-changes';

/** How often subscriptions about to end (or just ended) are read back from Stripe. */
export const REFRESH_INTERVAL_MS = 15 * 60_000;
/** Ending within this: read back, in case the renewal's webhook never comes. */
const REFRESH_AHEAD_MS = 60 * 60_000;
/** Read this recently (by any instance, or a webhook): not read again by the refresh. */
const REFRESH_FRESH_MS = 14 * 60_000;

/** The background work's 'billing' job: subscriptions about to end read back from Stripe, every REFRESH_INTERVAL_MS. */
export class RenewalRefresh {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly deps: BillingJobDeps) {}

  /**
   * Reads back from Stripe each Stripe-billed subscription whose access ends within the next hour or ended less than
   * the grace days ago, unless read in the last minutes: a missed renewal webhook must not cut a paying practice off.
   * Answers how many changed. Operator mode: nothing to do.
   */
  async refreshEnding(): Promise<number> {
    const { connection, settings } = this.deps.stripe;
    if (!connection || !settings) return 0;
    const now = this.deps.clock().getTime();
    const graceMs = settings.graceDays * 86_400_000;
    const due = this.deps.accounts.current.subscriptions.filter((s) => {
      if (!s.stripe_subscription_id || !s.expires_at) return false;
      const endsIn = Date.parse(s.expires_at) - now;
      const synced = s.stripe_synced_at ? now - Date.parse(s.stripe_synced_at) : Infinity;
      return endsIn <= REFRESH_AHEAD_MS && endsIn > -Math.max(graceMs, REFRESH_AHEAD_MS) && synced > REFRESH_FRESH_MS;
    });
    let changed = 0;
    for (const stored of due) {
      const readAt = this.deps.clock();
      const sub = await this.deps.stripe.retrieveKnown(stored.stripe_subscription_id!);
      if (!sub) continue;
      const context = { readAt, organisationHint: stored.organisation_id, event: null, reason: 'billing_refresh' };
      const result = await this.deps.changes.apply(sub, { ...context, by: { source: 'stripe' } });
      if (result.outcome === 'applied') changed += 1;
    }
    return changed;
  }

  /** Starts refreshEnding every REFRESH_INTERVAL_MS (nothing in operator mode). */
  start(): void {
    if (!this.deps.stripe.connection || this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.refreshEnding()
        .catch((err: unknown) => this.deps.logger.warn({ err }, 'could not re-read ending Stripe subscriptions'))
        .then(() => undefined)
        .finally(() => (this.running = null));
    }, REFRESH_INTERVAL_MS).unref();
  }

  /** Stops the refresh and waits for a run under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
