import type { AccountService } from '../accounts/account-service';
import type { AuditActor, AuditRecorder } from '../audit/audit-log';
import type { Logger } from '../logger';
import { organisationOf, recordBilledState, type Applied, type ApplyTarget } from './billing-records';
import type { StripeCalls } from './stripe-calls';
import { billedStateOf, billedStateOfMissing, type StripeSubscriptionLike } from './stripe-subscription';

/** How a subscription read from Stripe is applied: when it was read, who to audit it as, and why. */
export interface ApplyContext {
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

export interface SubscriptionChangesDeps {
  accounts: AccountService;
  audit: AuditRecorder;
  clock: () => Date;
  /** STRIPE_GRACE_DAYS: how long access outlasts a failed renewal (0 in operator mode). */
  graceDays: number;
}

/** What each billing job (checkout, webhook intake, billing-sync, the renewal refresh) works with. */
export interface BillingJobDeps {
  stripe: StripeCalls;
  accounts: AccountService;
  changes: SubscriptionChanges;
  clock: () => Date;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/**
 * Applying what Stripe says of a subscription, whoever read it (the webhook, the return from Checkout, billing-sync,
 * the renewal refresh): one update of billing's records (billing-records.ts), then its audit event when it changed.
 */
export class SubscriptionChanges {
  constructor(private readonly deps: SubscriptionChangesDeps) {}

  /** Applies Stripe's subscription to the organisation it is for (its metadata, the hint, or whoever holds it). */
  apply(sub: StripeSubscriptionLike, context: ApplyContext): Promise<Applied> {
    return this.applyState(context, {
      organisationOf: (data) => organisationOf(data, sub, context.organisationHint),
      next: (_record, now) => billedStateOf(sub, this.deps.graceDays, now),
    });
  }

  /** Ends the access of the organisation whose subscription `id` Stripe does not know; no other is touched. */
  applyMissing(id: string, context: ApplyContext): Promise<Applied> {
    return this.applyState(context, {
      organisationOf: (data) =>
        data.subscriptions.find((s) => s.stripe_subscription_id === id)?.organisation_id ?? null,
      next: (record) => billedStateOfMissing(id, record.stripe_customer_id),
    });
  }

  private async applyState(context: ApplyContext, target: ApplyTarget): Promise<Applied> {
    const { readAt, event } = context;
    const result = await this.deps.accounts.updateBilling((data) =>
      recordBilledState(data, target, { readAt, event, now: this.deps.clock() }),
    );
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
