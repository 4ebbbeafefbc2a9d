import type Stripe from 'stripe';
import type { BillingData, WebhookReceivedData } from '../../shared/api/billing';
import type { Role } from '../../shared/api/team';
import type { AccountService } from '../accounts/account-service';
import type { AccountsFile, AccountStore, Subscription } from '../accounts/account-store';
import type { AuditActor, AuditRecorder } from '../audit/audit-log';
import type { StripeSettings } from '../config';
import type { Logger } from '../logger';
import { ContractError } from '../contract-error';
import { organisationOf, rememberEvent, replaces, subscriptionRecord } from './billing-records';
import { billingView } from './billing-view';
import type { StripeConnection } from './stripe-client';
import { idOf, subscriptionOfEvent } from './stripe-events';
import {
  billedStateChanged,
  billedStateOf,
  billedStateOfMissing,
  isRunningStripeStatus,
  type BilledState,
  type StripeSubscriptionLike,
} from './stripe-subscription';

/** The billing service of `settings`: in operator mode (null) without ever loading the `stripe` package. */
export async function openBillingService(deps: Omit<BillingServiceDeps, 'stripe'>): Promise<BillingService> {
  const stripe = deps.settings ? (await import('./stripe-client')).connectStripe(deps.settings) : null;
  return new BillingService({ ...deps, stripe });
}

export type WebhookOutcome = WebhookReceivedData['outcome'];

/** The events whose subscription is read from Stripe and applied; any other is answered 'ignored'. */
export const HANDLED_EVENTS = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'customer.subscription.trial_will_end',
  'invoice.paid',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
]);

/** How often subscriptions about to end (or just ended) are read back from Stripe. */
export const REFRESH_INTERVAL_MS = 15 * 60_000;
/** Ending within this: read back, in case the renewal's webhook never comes. */
const REFRESH_AHEAD_MS = 60 * 60_000;
/** Read this recently (by any instance, or a webhook): not read again by the refresh. */
const REFRESH_FRESH_MS = 14 * 60_000;
/** How long a client waits before asking again after billing_unavailable: Stripe's blips pass in seconds. */
const BILLING_RETRY_AFTER_SECONDS = 30;

export interface BillingServiceDeps {
  /** stripeSettings(config): null = operator mode. */
  settings: StripeSettings | null;
  /** The Stripe client for `settings` (openBillingService connects it); null in operator mode. */
  stripe: StripeConnection | null;
  store: AccountStore;
  accounts: AccountService;
  audit: AuditRecorder;
  clock: () => Date;
  logger: Pick<Logger, 'warn' | 'error' | 'info'>;
}

/** How a subscription read from Stripe is applied: when it was read, who to audit it as, and why. */
interface ApplyContext {
  readAt: Date;
  /** The organisation the caller knows it is for (a Checkout Session's client_reference_id). */
  organisationHint: string | null;
  event: { id: string; type: string } | null;
  by: AuditActor;
  /** The audit event's reason. */
  reason: string;
  /** The member who caused it (checkout completion). */
  who?: { account_id: string; email: string };
}

/** Which organisation a change is for, and the state it gets (from its record as stored, inside the update). */
interface ApplyTarget {
  organisationOf(data: AccountsFile): string | null;
  next(record: Subscription, now: Date): BilledState;
}

/** The audit reason when Stripe answers 404 for a subscription an organisation holds. */
const MISSING_REASON = 'stripe_subscription_missing';

interface Applied {
  outcome: WebhookOutcome;
  organisationId: string | null;
  subscription: Subscription | null;
}

/**
 * Billing with Stripe: Checkout and the Customer Portal for owners; Stripe's webhook, the console's return from
 * Checkout and `billing-sync` all apply Stripe's subscription as Stripe says it is now (read back from Stripe), so the
 * order in which events arrive never matters. In operator mode (no STRIPE_*) only the view works.
 */
export class BillingService {
  private readonly stripe: StripeConnection | null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(private readonly deps: BillingServiceDeps) {
    this.stripe = deps.settings ? deps.stripe : null;
  }

  get mode(): 'stripe' | 'operator' {
    return this.deps.settings ? 'stripe' : 'operator';
  }

  view(organisationId: string, role: Role): BillingData {
    const sub = this.deps.accounts.subscriptionOfOrganisation(organisationId);
    return billingView(sub, { stripeMode: this.stripe !== null, role, now: this.deps.clock() });
  }

  /** A Checkout Session for the organisation's owner; answers the page to send the browser to. Stores nothing. */
  async checkout(organisationId: string, ownerEmail: string, origin: string): Promise<string> {
    const { stripe, settings } = this.configured();
    const sub = this.deps.accounts.subscriptionOfOrganisation(organisationId);
    if (sub && isRunningStripeStatus(sub.stripe_status)) throw new ContractError('already_subscribed');
    const metadata = { organisation_id: organisationId };
    try {
      const session = await stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: settings.priceId, quantity: 1 }],
        client_reference_id: organisationId,
        ...(sub?.stripe_customer_id ? { customer: sub.stripe_customer_id } : { customer_email: ownerEmail }),
        metadata,
        subscription_data: { metadata },
        success_url: `${origin}/console/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${origin}/console/billing?checkout=cancelled`,
      });
      if (!session.url) throw new Error('Stripe answered a Checkout Session without a url');
      return session.url;
    } catch (err) {
      throw this.unavailable(err, 'could not create a Checkout Session');
    }
  }

  /**
   * The console back from Checkout: reads the Checkout Session and, once paid, its subscription, and applies it now
   * rather than waiting for the webhook. A session of another organisation is not found.
   */
  async completeCheckout(
    organisationId: string,
    sessionId: string,
    who: { account_id: string; email: string; by: AuditActor },
  ): Promise<void> {
    const { stripe } = this.configured();
    let session: Stripe.Checkout.Session;
    try {
      session = await stripe.checkout.sessions.retrieve(sessionId);
    } catch (err) {
      if (this.stripe?.isMissing(err)) throw new ContractError('checkout_not_found');
      throw this.unavailable(err, 'could not read a Checkout Session');
    }
    if (session.client_reference_id !== organisationId) throw new ContractError('checkout_not_found');
    const subscriptionId = idOf(session.subscription);
    if (!subscriptionId) return; // not paid (yet): the webhook applies it when it is
    const readAt = this.deps.clock();
    const sub = await this.retrieve(subscriptionId);
    await this.apply(sub, {
      readAt,
      organisationHint: organisationId,
      event: null,
      by: who.by,
      reason: 'checkout_completed',
      who: { account_id: who.account_id, email: who.email },
    });
  }

  /** A Customer Portal session for the organisation's Stripe customer. */
  async portal(organisationId: string, origin: string): Promise<string> {
    const { stripe } = this.configured();
    const customer = this.deps.accounts.subscriptionOfOrganisation(organisationId)?.stripe_customer_id;
    if (!customer) throw new ContractError('no_billing_account');
    try {
      const session = await stripe.billingPortal.sessions.create({ customer, return_url: `${origin}/console/billing` });
      return session.url;
    } catch (err) {
      throw this.unavailable(err, 'could not create a Customer Portal session');
    }
  }

  /**
   * A delivery of Stripe's webhook: verified on its exact bytes, then the subscription it concerns is read back from
   * Stripe and applied once per event id. Stripe unreachable → billing_unavailable (answered 503: Stripe retries).
   * Anything else a signed event can hold is acknowledged (2xx): Stripe retries a delivery with the same bytes for
   * three days, so an event that cannot be used now (no object, no subscription, one Stripe does not know) never can.
   */
  async receiveWebhook(raw: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
    const { connection, settings } = this.configured();
    const event = connection.verifiedEvent(raw, signature, settings.webhookSecret);
    if (!HANDLED_EVENTS.has(event.type)) return 'ignored';
    if (this.deps.store.current.billing_events.some((e) => e.id === event.id)) return 'duplicate';
    const logged = { stripe_event_id: event.id, type: event.type };
    const concerned = subscriptionOfEvent(event);
    if (!concerned) {
      this.deps.logger.info(logged, 'a Stripe event names no subscription: nothing changed');
      return 'ignored';
    }
    const context = {
      readAt: this.deps.clock(),
      organisationHint: concerned.organisationHint,
      event: { id: event.id, type: event.type },
      by: { source: 'stripe' } as const,
    };
    let sub: StripeSubscriptionLike;
    try {
      sub = await this.retrieve(concerned.subscriptionId);
    } catch (err) {
      if (!(err instanceof MissingSubscription)) throw err;
      // Never the event's own copy: what Stripe does not know gives no access, whatever the copy says.
      const ended = await this.applyMissing(concerned.subscriptionId, { ...context, reason: MISSING_REASON });
      if (ended.outcome !== 'unknown_organisation') return ended.outcome;
      this.deps.logger.warn({ ...logged, stripe_subscription_id: err.id }, 'Stripe has no such subscription');
      return 'ignored';
    }
    const result = await this.apply(sub, { ...context, reason: sub.status });
    if (result.outcome === 'unknown_organisation') {
      this.deps.logger.warn(
        { ...logged, stripe_subscription_id: sub.id },
        'a Stripe event names no organisation of this service: nothing changed',
      );
    }
    return result.outcome;
  }

  /**
   * Re-reads every Stripe subscription (a missed webhook) and applies each that names an organisation, then the
   * stored subscription ids the list did not have. Answers one line per organisation changed, and a total.
   */
  async sync(by: AuditActor): Promise<string[]> {
    const { stripe } = this.configured();
    const readAt = this.deps.clock();
    const seen = new Set<string>();
    const lines: string[] = [];
    const context: ApplyContext = { readAt, organisationHint: null, event: null, by, reason: 'billing_sync' };
    const applyOne = async (sub: StripeSubscriptionLike) => {
      seen.add(sub.id);
      const result = await this.apply(sub, context);
      if (result.outcome === 'applied' && result.subscription) lines.push(this.describe(result.subscription));
    };
    try {
      for await (const sub of stripe.subscriptions.list({ status: 'all', limit: 100 })) await applyOne(sub);
    } catch (err) {
      throw this.unavailable(err, 'could not list Stripe subscriptions');
    }
    const stored = this.deps.store.current.subscriptions.flatMap((s) => s.stripe_subscription_id ?? []);
    for (const id of new Set(stored)) {
      if (seen.has(id)) continue;
      const sub = await this.retrieve(id).catch((err: unknown) => {
        if (!(err instanceof MissingSubscription)) throw err;
        this.deps.logger.warn({ stripe_subscription_id: id }, 'Stripe no longer knows a stored subscription');
        return null;
      });
      if (sub) await applyOne(sub);
    }
    lines.push(`${lines.length} organisation(s) changed; ${seen.size} Stripe subscription(s) read`);
    return lines;
  }

  /**
   * Reads back from Stripe each Stripe-billed subscription whose access ends within the next hour or ended less than
   * the grace days ago, unless read in the last minutes: a missed renewal webhook must not cut a paying practice off.
   * Answers how many changed. Operator mode: nothing to do.
   */
  async refreshEnding(): Promise<number> {
    if (!this.stripe || !this.deps.settings) return 0;
    const now = this.deps.clock().getTime();
    const graceMs = this.deps.settings.graceDays * 86_400_000;
    const due = this.deps.store.current.subscriptions.filter((s) => {
      if (!s.stripe_subscription_id || !s.expires_at) return false;
      const endsIn = Date.parse(s.expires_at) - now;
      const synced = s.stripe_synced_at ? now - Date.parse(s.stripe_synced_at) : Infinity;
      return endsIn <= REFRESH_AHEAD_MS && endsIn > -Math.max(graceMs, REFRESH_AHEAD_MS) && synced > REFRESH_FRESH_MS;
    });
    let changed = 0;
    for (const stored of due) {
      const readAt = this.deps.clock();
      const sub = await this.retrieve(stored.stripe_subscription_id!).catch((err: unknown) => {
        if (err instanceof MissingSubscription) return null;
        throw err;
      });
      if (!sub) continue;
      const context = { readAt, organisationHint: stored.organisation_id, event: null, reason: 'billing_refresh' };
      const result = await this.apply(sub, { ...context, by: { source: 'stripe' } });
      if (result.outcome === 'applied') changed += 1;
    }
    return changed;
  }

  /** Starts refreshEnding every REFRESH_INTERVAL_MS (the background work's 'billing' job). */
  startRefresh(): void {
    if (!this.stripe || this.refreshTimer) return;
    this.refreshTimer = setInterval(() => {
      if (this.refreshing) return;
      this.refreshing = this.refreshEnding()
        .catch((err: unknown) => this.deps.logger.warn({ err }, 'could not re-read ending Stripe subscriptions'))
        .then(() => undefined)
        .finally(() => (this.refreshing = null));
    }, REFRESH_INTERVAL_MS).unref();
  }

  /** Stops the refresh and waits for a run under way. */
  async stopRefresh(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = null;
    await this.refreshing;
  }

  private describe(sub: Subscription): string {
    const name = this.deps.accounts.organisation(sub.organisation_id)?.name ?? sub.organisation_id;
    const until = sub.status === 'active' && sub.expires_at ? ` until ${sub.expires_at}` : '';
    return `${name} (${sub.organisation_id}): ${sub.status}${until} (Stripe: ${sub.stripe_status ?? 'none'})`;
  }

  private configured(): { stripe: Stripe; connection: StripeConnection; settings: StripeSettings } {
    if (!this.stripe || !this.deps.settings) throw new ContractError('billing_not_configured');
    return { stripe: this.stripe.api, connection: this.stripe, settings: this.deps.settings };
  }

  /** Stripe's subscription as it is now; an unknown id is MissingSubscription, any other failure unavailable. */
  private async retrieve(id: string): Promise<StripeSubscriptionLike> {
    try {
      return await this.configured().stripe.subscriptions.retrieve(id);
    } catch (err) {
      if (this.stripe?.isMissing(err)) throw new MissingSubscription(id);
      throw this.unavailable(err, 'could not read a Stripe subscription');
    }
  }

  /** A failed Stripe call as billing_unavailable, logged without its message (which can quote parameters). */
  private unavailable(err: unknown, what: string): ContractError {
    if (err instanceof ContractError) return err;
    const transient = this.stripe?.isTransient(err) ?? false;
    const summary = this.stripe?.errorSummary(err) ?? {};
    if (transient) this.deps.logger.warn(summary, what);
    else this.deps.logger.error(summary, `${what}: check STRIPE_SECRET_KEY and STRIPE_PRICE_ID`);
    return new ContractError('billing_unavailable', { retryAfterSeconds: BILLING_RETRY_AFTER_SECONDS });
  }

  /** Applies Stripe's subscription to the organisation it is for (its metadata, the hint, or whoever holds it). */
  private apply(sub: StripeSubscriptionLike, context: ApplyContext): Promise<Applied> {
    const graceDays = this.deps.settings?.graceDays ?? 0;
    return this.applyState(context, {
      organisationOf: (data) => organisationOf(data, sub, context.organisationHint),
      next: (_record, now) => billedStateOf(sub, graceDays, now),
    });
  }

  /** Ends the access of the organisation whose subscription `id` Stripe does not know; no other is touched. */
  private applyMissing(id: string, context: ApplyContext): Promise<Applied> {
    return this.applyState(context, {
      organisationOf: (data) =>
        data.subscriptions.find((s) => s.stripe_subscription_id === id)?.organisation_id ?? null,
      next: (record) => billedStateOfMissing(id, record.stripe_customer_id),
    });
  }

  /**
   * Applies a state from Stripe to the organisation it is for, in one update that also records the event id (two
   * concurrent deliveries of one event apply it once). A read older than the one stored never overwrites it; of two
   * Stripe subscriptions of one organisation, the one that gives access wins, else the later period end.
   */
  private async applyState(context: ApplyContext, target: ApplyTarget): Promise<Applied> {
    const { readAt, event } = context;
    const result = await this.deps.store.update((data): Applied => {
      const now = this.deps.clock();
      if (event && data.billing_events.some((e) => e.id === event.id)) {
        return { outcome: 'duplicate', organisationId: null, subscription: null };
      }
      const organisationId = target.organisationOf(data);
      if (!organisationId) return { outcome: 'unknown_organisation', organisationId: null, subscription: null };
      if (event) rememberEvent(data, event, organisationId, now);
      const record = subscriptionRecord(data, organisationId, now);
      const next = target.next(record, now);
      if (!replaces(record, next, readAt, now)) return { outcome: 'unchanged', organisationId, subscription: null };
      const changed = billedStateChanged(record, next);
      Object.assign(record, next, { stripe_synced_at: readAt.toISOString() });
      if (!changed) return { outcome: 'unchanged', organisationId, subscription: null };
      record.updated_at = now.toISOString();
      return { outcome: 'applied', organisationId, subscription: { ...record } };
    });
    if (result.outcome === 'applied' && result.subscription) {
      const { status, expires_at, rate_limit } = result.subscription;
      await this.deps.audit.record({
        event: 'subscription_changed',
        ...context.by,
        account_id: context.who?.account_id ?? null,
        email: context.who?.email ?? null,
        organisation_id: result.subscription.organisation_id,
        subscription: { status, expires_at, rate_limit },
        reason: context.reason,
        ...(event && { stripe_event_id: event.id }),
      });
    }
    return result;
  }
}

/** A subscription id Stripe does not know (404). */
class MissingSubscription extends Error {
  constructor(readonly id: string) {
    super(`Stripe has no subscription ${id}`);
  }
}
