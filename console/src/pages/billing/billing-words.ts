import { ACCESS_ENDED_WORDS, type BillingData } from '../../../../shared/api/billing';
import { dayWords, lastAccessDayWords } from '../../../../shared/domain/paid-until';
import type { AccountFailure } from '../../../../ui/api/account-result';

/**
 * The date that matters and what it is, in days as the practice counts them (Sydney's, the last day of access rather
 * than the midnight after it): "Renews on" a renewing Stripe subscription; "Ends on" one cancelled at the end of its
 * period; "Paid until" an end date (the operator's, or one that passed); "Ended on" what Stripe ended. Null when none.
 */
export function dateLine(b: BillingData): { label: string; day: string } | null {
  const end = b.ends_at ?? b.expires_at;
  if (b.status === 'active') {
    if (b.renews_at) return { label: 'Renews on', day: dayWords(b.renews_at) };
    if (!end) return null;
    if (b.ended_reason === 'cancelled') return { label: 'Ends on', day: lastAccessDayWords(end) };
    if (paymentRetrying(b)) return { label: 'Access until', day: lastAccessDayWords(end) };
    return { label: 'Paid until', day: lastAccessDayWords(end) };
  }
  if (!end || b.ended_reason === 'operator') return null;
  return { label: b.ended_reason === 'expired' ? 'Paid until' : 'Ended on', day: lastAccessDayWords(end) };
}

/** Whether a renewal payment failed and Stripe is retrying while access continues. */
export function paymentRetrying(b: BillingData): boolean {
  return b.status === 'active' && (b.stripe_status === 'past_due' || b.ended_reason === 'payment_failed');
}

/** Why access ended, in words; null while it has not (or never started). */
export function endedWords(b: BillingData): string | null {
  if (b.status !== 'inactive' || !b.ended_reason) return null;
  return ACCESS_ENDED_WORDS[b.ended_reason];
}

/** Said of an active subscription that will stop at its end date, short of a failed payment. */
export function endingWords(b: BillingData): string | null {
  if (b.status !== 'active' || b.renews_at || paymentRetrying(b)) return null;
  if (b.ended_reason === 'cancelled') return 'The subscription was cancelled: access continues until its end date.';
  return null;
}

export const UNAVAILABLE = 'The payment service could not be reached; nothing was changed. Try again in a minute.';

/** Subscribe's and Manage billing's refusals, in words the owner can act on. */
export function billingFailureWords(failure: AccountFailure, describe: (f: AccountFailure) => string): string {
  switch (failure.code) {
    case 'billing_unavailable':
      return UNAVAILABLE;
    case 'already_subscribed':
      return 'The subscription is already paid for: nothing was changed. Use Manage billing to change it.';
    case 'no_billing_account':
      return 'There is no billing account yet: subscribe first.';
    case 'billing_not_configured':
      return 'Billing is not set up on this server: the service’s operator manages your subscription.';
    case 'checkout_not_found':
      return 'That checkout does not belong to your practice: nothing was changed.';
    case 'forbidden_role':
      return 'Only an owner of your team can subscribe or manage billing.';
    default:
      return describe(failure);
  }
}
