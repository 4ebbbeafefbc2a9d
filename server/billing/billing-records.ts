import { isSubscriptionActive, newSubscription } from '../accounts/account-service';
import type { AccountsFile, Subscription } from '../accounts/account-store';
import { billedStateOf, customerIdOf, type StripeSubscriptionLike } from './stripe-subscription';

/** Applied event ids are kept well past Stripe's three days of retries. */
const EVENT_MEMORY_MS = 30 * 86_400_000;

/**
 * The organisation a Stripe subscription is for: its metadata (set at checkout), the Checkout Session's
 * client_reference_id, then whichever organisation already holds its id or its customer's.
 */
export function organisationOf(data: AccountsFile, sub: StripeSubscriptionLike, hint: string | null): string | null {
  const exists = (id: string | null | undefined): id is string => !!id && data.organisations.some((o) => o.id === id);
  const fromMetadata = sub.metadata?.['organisation_id'];
  if (exists(fromMetadata)) return fromMetadata;
  if (exists(hint)) return hint;
  const bySubscription = data.subscriptions.find((s) => s.stripe_subscription_id === sub.id)?.organisation_id;
  if (exists(bySubscription)) return bySubscription;
  const customer = customerIdOf(sub);
  const byCustomer = customer && data.subscriptions.find((s) => s.stripe_customer_id === customer)?.organisation_id;
  return exists(byCustomer) ? byCustomer : null;
}

export function rememberEvent(
  data: AccountsFile,
  event: { id: string; type: string },
  organisationId: string,
  now: Date,
) {
  const oldest = now.getTime() - EVENT_MEMORY_MS;
  data.billing_events = data.billing_events.filter((e) => Date.parse(e.received_at) >= oldest);
  data.billing_events.push({
    id: event.id,
    type: event.type,
    organisation_id: organisationId,
    received_at: now.toISOString(),
  });
}

/** The organisation's subscription record (every organisation has one; made if missing). */
export function subscriptionRecord(data: AccountsFile, organisationId: string, now: Date): Subscription {
  const existing = data.subscriptions.find((s) => s.organisation_id === organisationId);
  if (existing) return existing;
  const created = newSubscription(organisationId, now);
  data.subscriptions.push(created);
  return created;
}

/** Whether Stripe's state `next`, read at `readAt`, replaces what `record` holds. */
export function replaces(
  record: Subscription,
  next: ReturnType<typeof billedStateOf>,
  readAt: Date,
  now: Date,
): boolean {
  if (!record.stripe_subscription_id) return true;
  if (record.stripe_subscription_id === next.stripe_subscription_id) {
    return !(record.stripe_synced_at && Date.parse(record.stripe_synced_at) > readAt.getTime());
  }
  const storedAccess = isSubscriptionActive(record, now);
  const nextAccess = isSubscriptionActive(next, now);
  if (storedAccess !== nextAccess) return nextAccess;
  const periodEnd = (iso: string | null) => (iso ? Date.parse(iso) : 0);
  return periodEnd(next.current_period_end) >= periodEnd(record.current_period_end);
}
