import type Stripe from 'stripe';

/**
 * A Stripe subscription id. An event is signed, but what it names is still read from a body: only an id of this
 * shape is asked of Stripe's API, so an odd one (a number, '', a path) is an event that names no subscription.
 */
const SUBSCRIPTION_ID = /^sub_\w{1,250}$/;

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null;

/** The id of a field Stripe gives as an id, or as the object when expanded; null when it is neither. */
export const idOf = (value: unknown): string | null => {
  if (typeof value === 'string') return value;
  return isObject(value) && typeof value['id'] === 'string' ? value['id'] : null;
};

const subscriptionIdOf = (value: unknown): string | null => {
  const id = idOf(value);
  return id !== null && SUBSCRIPTION_ID.test(id) ? id : null;
};

/**
 * The subscription an event concerns, and the organisation a Checkout Session names; null when none (the event's
 * object missing, null, or naming no subscription id).
 */
export function subscriptionOfEvent(
  event: Stripe.Event,
): { subscriptionId: string; organisationHint: string | null } | null {
  const object: unknown = (event.data as { object?: unknown } | undefined)?.object;
  if (!isObject(object)) return null;
  if (event.type === 'checkout.session.completed') {
    const subscriptionId = object['mode'] === 'subscription' ? subscriptionIdOf(object['subscription']) : null;
    const hint = object['client_reference_id'];
    return subscriptionId ? { subscriptionId, organisationHint: typeof hint === 'string' ? hint : null } : null;
  }
  if (event.type.startsWith('customer.subscription.')) {
    const subscriptionId = subscriptionIdOf(object['id']);
    return subscriptionId ? { subscriptionId, organisationHint: null } : null;
  }
  // Invoices: API 2025-03-31 on names the subscription under parent.subscription_details; older ones at the top.
  const parent = object['parent'];
  const details = isObject(parent) ? parent['subscription_details'] : null;
  const subscriptionId =
    subscriptionIdOf(isObject(details) ? details['subscription'] : null) ?? subscriptionIdOf(object['subscription']);
  return subscriptionId ? { subscriptionId, organisationHint: null } : null;
}
