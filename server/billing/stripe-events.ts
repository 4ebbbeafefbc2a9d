import Stripe from 'stripe';
import { BillingError } from './billing-error';

/** Stripe signs a delivery with its time; an older one is a replay (Stripe's own default tolerance). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The id of a field Stripe gives as an id, or as the object when expanded. */
export const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === 'string' ? value : (value?.id ?? null);

/** The event Stripe signed, or invalid_signature (missing, wrong, or older than the tolerance); invalid_json. */
export function verifiedEvent(
  stripe: Stripe,
  raw: Buffer,
  signature: string | undefined,
  secret: string,
): Stripe.Event {
  if (!signature) throw new BillingError('invalid_signature');
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(raw, signature, secret, SIGNATURE_TOLERANCE_SECONDS);
  } catch (err) {
    if (err instanceof Stripe.errors.StripeSignatureVerificationError) throw new BillingError('invalid_signature');
    throw new BillingError('invalid_json');
  }
  const shape = event as Partial<Stripe.Event> | null;
  if (typeof shape?.id !== 'string' || typeof shape.type !== 'string' || typeof shape.data?.object !== 'object') {
    throw new BillingError('invalid_json');
  }
  return event;
}

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
