import { AccessEndedReason, type BillingData } from '../../shared/api/billing';
import { PLAN_NAME } from '../../shared/api/keys';
import type { Role } from '../../shared/api/team';
import { isSubscriptionActive } from '../accounts/account-service';
import type { Subscription } from '../accounts/account-records';
import { isRunningStripeStatus } from './stripe-subscription';

/** Why access ended as the console words it: what was stored, or an end date that passed with nothing stored. */
function endedReasonOf(sub: Subscription, now: Date): AccessEndedReason | null {
  const stored = AccessEndedReason.safeParse(sub.ended_reason);
  if (stored.success) return stored.data;
  const passed = sub.expires_at !== null && Date.parse(sub.expires_at) <= now.getTime();
  return sub.status === 'active' && passed ? 'expired' : null;
}

/**
 * GET /api/v1/billing's view of an organisation's subscription for a member with `role`. `stripeMode`: billing with
 * Stripe is configured (Subscribe and Manage billing are offered to owners).
 */
export function billingView(
  sub: Subscription | undefined,
  { stripeMode, role, now }: { stripeMode: boolean; role: Role; now: Date },
): BillingData {
  const stripeStatus = stripeMode ? (sub?.stripe_status ?? null) : null;
  const renewing = (stripeStatus === 'active' || stripeStatus === 'trialing') && !sub?.cancel_at_period_end;
  const renews_at = renewing ? (sub?.current_period_end ?? null) : null;
  const owner = role === 'owner';
  return {
    mode: stripeMode ? 'stripe' : 'operator',
    plan: PLAN_NAME,
    status: isSubscriptionActive(sub, now) ? 'active' : 'inactive',
    expires_at: sub?.expires_at ?? null,
    renews_at,
    ends_at: renews_at ? null : (sub?.expires_at ?? null),
    ended_reason: sub ? endedReasonOf(sub, now) : null,
    stripe_status: stripeStatus,
    can_subscribe: stripeMode && owner && !isRunningStripeStatus(stripeStatus),
    can_manage_billing: stripeMode && owner && !!sub?.stripe_customer_id,
  };
}
