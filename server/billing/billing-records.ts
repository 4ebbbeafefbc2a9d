import type { WebhookReceivedData } from '../../shared/api/billing';
import { isSubscriptionActive, newSubscription, type BillingTables } from '../accounts/account-service';
import type { Subscription } from '../accounts/account-records';
import { billedStateChanged, customerIdOf, type BilledState, type StripeSubscriptionLike } from './stripe-subscription';

/**
 * Billing's part of the accounts document: a subscription's Stripe fields and the Stripe events applied. This is the
 * only code that writes them (inside AccountService.updateBilling's one update); the operator's set-subscription
 * only marks the access it ends as the operator's (ended_reason).
 */

/** Applied event ids are kept well past Stripe's three days of retries. */
const EVENT_MEMORY_MS = 30 * 86_400_000;

/**
 * The organisation a Stripe subscription is for: its metadata (set at checkout), the Checkout Session's
 * client_reference_id, then whichever organisation already holds its id or its customer's.
 */
export function organisationOf(data: BillingTables, sub: StripeSubscriptionLike, hint: string | null): string | null {
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
  data: BillingTables,
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
export function subscriptionRecord(data: BillingTables, organisationId: string, now: Date): Subscription {
  const existing = data.subscriptions.find((s) => s.organisation_id === organisationId);
  if (existing) return existing;
  const created = newSubscription(organisationId, now);
  data.subscriptions.push(created);
  return created;
}

/** Whether Stripe's state `next`, read at `readAt`, replaces what `record` holds. */
export function replaces(record: Subscription, next: BilledState, readAt: Date, now: Date): boolean {
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

export type WebhookOutcome = WebhookReceivedData['outcome'];

/** Which organisation a change is for, and the state it gets (from its record as stored, inside the update). */
export interface ApplyTarget {
  organisationOf(data: BillingTables): string | null;
  next(record: Subscription, now: Date): BilledState;
}

/** What applying a state from Stripe came to: the subscription as it is now when it changed. */
export interface Applied {
  outcome: WebhookOutcome;
  organisationId: string | null;
  subscription: Subscription | null;
}

/**
 * Applies a state from Stripe, read at `readAt`, to the organisation it is for, recording the event id (if any) in
 * the same update: two concurrent deliveries of one event apply it once. A read older than the one stored never
 * overwrites it; of two Stripe subscriptions of one organisation, the one that gives access wins, else the later
 * period end.
 */
export function recordBilledState(
  data: BillingTables,
  target: ApplyTarget,
  { readAt, event, now }: { readAt: Date; event: { id: string; type: string } | null; now: Date },
): Applied {
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
}
