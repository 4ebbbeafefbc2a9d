import type Stripe from 'stripe';

/** The id of a field Stripe gives as an id, or as the object when expanded. */
export const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === 'string' ? value : (value?.id ?? null);

/** The subscription an event concerns, and the organisation a Checkout Session names; null when none. */
export function subscriptionOfEvent(
  event: Stripe.Event,
): { subscriptionId: string; organisationHint: string | null } | null {
  const object = event.data.object as unknown as Record<string, unknown>;
  if (event.type === 'checkout.session.completed') {
    const session = object as unknown as Stripe.Checkout.Session;
    const subscriptionId = session.mode === 'subscription' ? idOf(session.subscription) : null;
    return subscriptionId ? { subscriptionId, organisationHint: session.client_reference_id ?? null } : null;
  }
  if (event.type.startsWith('customer.subscription.')) {
    return typeof object['id'] === 'string' ? { subscriptionId: object['id'], organisationHint: null } : null;
  }
  // Invoices: API 2025-03-31 on names the subscription under parent.subscription_details; older ones at the top.
  const invoice = object as {
    parent?: { subscription_details?: { subscription?: string | { id: string } | null } | null } | null;
    subscription?: string | { id: string } | null;
  };
  const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(invoice.subscription);
  return subscriptionId ? { subscriptionId, organisationHint: null } : null;
}
