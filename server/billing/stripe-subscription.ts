import type Stripe from 'stripe';
import type { AccessEndedReason } from '../../shared/api/billing';
import type { Subscription } from '../accounts/account-records';

const DAY_MS = 86_400_000;

/** The fields of a stored subscription that Stripe's subscription object decides. */
export type BilledState = Pick<
  Subscription,
  | 'status'
  | 'expires_at'
  | 'stripe_customer_id'
  | 'stripe_subscription_id'
  | 'stripe_status'
  | 'current_period_end'
  | 'cancel_at_period_end'
  | 'ended_reason'
>;

/**
 * The subset of Stripe's subscription object read here. Since API 2025-03-31 the period lives on each subscription
 * item; older API versions (and a proxy pinned to one) still put it on the subscription itself.
 */
export type StripeSubscriptionLike = Pick<
  Stripe.Subscription,
  'id' | 'status' | 'customer' | 'cancel_at_period_end' | 'metadata'
> & {
  cancel_at?: number | null;
  ended_at?: number | null;
  canceled_at?: number | null;
  created?: number;
  current_period_end?: number | null;
  current_period_start?: number | null;
  items?: { data: { current_period_end?: number | null; current_period_start?: number | null }[] };
};

/** Stripe statuses under which the subscription still exists and bills (Subscribe is then not offered again). */
const RUNNING_STATUSES = new Set(['active', 'trialing', 'past_due', 'unpaid', 'paused']);

export function isRunningStripeStatus(status: string | null): boolean {
  return status !== null && RUNNING_STATUSES.has(status);
}

const INACTIVE_REASONS: Record<string, AccessEndedReason> = {
  canceled: 'cancelled',
  unpaid: 'unpaid',
  incomplete: 'incomplete',
  incomplete_expired: 'incomplete',
  paused: 'paused',
};

const iso = (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000).toISOString() : null);

/** The latest period end (start) among the items, else the subscription's own older top-level field. */
function period(sub: StripeSubscriptionLike, field: 'current_period_end' | 'current_period_start'): number | null {
  const fromItems = (sub.items?.data ?? []).map((item) => item[field]).filter((v): v is number => !!v);
  if (fromItems.length > 0) return Math.max(...fromItems);
  return sub[field] ?? null;
}

export const customerIdOf = (sub: Pick<StripeSubscriptionLike, 'customer'>): string | null =>
  typeof sub.customer === 'string' ? sub.customer : (sub.customer?.id ?? null);

/**
 * What Stripe's subscription means for access, decided by its status alone (never by which event told of it):
 * active/trialing run until the period end; past_due keeps `graceDays` after the renewal that failed; the others end
 * access. `now` tells whether the failed renewal is the current period's start (Stripe already moved the period on)
 * or its end (not yet moved).
 */
export function billedStateOf(sub: StripeSubscriptionLike, graceDays: number, now: Date): BilledState {
  const periodEnd = period(sub, 'current_period_end');
  const common = {
    stripe_customer_id: customerIdOf(sub),
    stripe_subscription_id: sub.id,
    stripe_status: sub.status,
    current_period_end: iso(periodEnd),
    cancel_at_period_end: sub.cancel_at_period_end || !!sub.cancel_at,
  };
  if (sub.status === 'active' || sub.status === 'trialing') {
    const ending = common.cancel_at_period_end;
    const end = sub.cancel_at && (!periodEnd || sub.cancel_at < periodEnd) ? sub.cancel_at : periodEnd;
    // Access paid through Stripe always ends somewhere: without a period (not Stripe's shape) there is none, rather
    // than access with no end date.
    if (!end) return { ...common, status: 'inactive', expires_at: null, ended_reason: null };
    return {
      ...common,
      status: 'active',
      expires_at: iso(end),
      ended_reason: ending ? 'cancelled' : null,
    };
  }
  if (sub.status === 'past_due') {
    const periodStart = period(sub, 'current_period_start');
    const failedAtMs = periodEnd
      ? (periodEnd * 1000 > now.getTime() ? (periodStart ?? periodEnd) : periodEnd) * 1000
      : // No period at all (not Stripe's shape): the grace counts from now rather than never ending.
        now.getTime();
    const graceEnd = new Date(failedAtMs + graceDays * DAY_MS).toISOString();
    return { ...common, status: 'active', expires_at: graceEnd, ended_reason: 'payment_failed' };
  }
  return {
    ...common,
    status: 'inactive',
    expires_at: sub.status === 'canceled' ? iso(sub.ended_at ?? sub.canceled_at) : null,
    ended_reason: INACTIVE_REASONS[sub.status] ?? null,
  };
}

/**
 * What a subscription Stripe answers 404 for means (its test data deleted, or an id of another Stripe account): no
 * access, and nothing running, so Subscribe is offered again. The customer is kept for Manage billing.
 */
export function billedStateOfMissing(id: string, customerId: string | null): BilledState {
  return {
    status: 'inactive',
    expires_at: null,
    stripe_customer_id: customerId,
    stripe_subscription_id: id,
    stripe_status: null,
    current_period_end: null,
    cancel_at_period_end: false,
    ended_reason: null,
  };
}

/** Whether applying `next` would change what is stored (the read time aside). */
export function billedStateChanged(stored: BilledState, next: BilledState): boolean {
  return (Object.keys(next) as (keyof BilledState)[]).some((key) => stored[key] !== next[key]);
}
