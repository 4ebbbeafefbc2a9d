import type { WebhookOutcome } from './billing-records';
import { subscriptionOfEvent } from './stripe-events';
import type { BillingJobDeps } from './subscription-changes';

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

/** The audit reason when Stripe answers 404 for a subscription an organisation holds. */
const MISSING_REASON = 'stripe_subscription_missing';

/** Stripe's webhook: each delivery verified, and the subscription it concerns read back from Stripe and applied. */
export class WebhookIntake {
  constructor(private readonly deps: BillingJobDeps) {}

  /**
   * A delivery of Stripe's webhook: verified on its exact bytes, then the subscription it concerns is read back from
   * Stripe and applied once per event id. Stripe unreachable → billing_unavailable (answered 503: Stripe retries).
   * Anything else a signed event can hold is acknowledged (2xx): Stripe retries a delivery with the same bytes for
   * three days, so an event that cannot be used now (no object, no subscription, one Stripe does not know) never can.
   */
  async receive(raw: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
    const { connection, settings } = this.deps.stripe.configured();
    const event = connection.verifiedEvent(raw, signature, settings.webhookSecret);
    if (!HANDLED_EVENTS.has(event.type)) return 'ignored';
    if (this.deps.accounts.current.billing_events.some((e) => e.id === event.id)) return 'duplicate';
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
    const sub = await this.deps.stripe.retrieveKnown(concerned.subscriptionId);
    if (!sub) {
      // Never the event's own copy: what Stripe does not know gives no access, whatever the copy says.
      const ended = await this.deps.changes.applyMissing(concerned.subscriptionId, {
        ...context,
        reason: MISSING_REASON,
      });
      if (ended.outcome !== 'unknown_organisation') return ended.outcome;
      this.deps.logger.warn(
        { ...logged, stripe_subscription_id: concerned.subscriptionId },
        'Stripe has no such subscription',
      );
      return 'ignored';
    }
    const result = await this.deps.changes.apply(sub, { ...context, reason: sub.status });
    if (result.outcome === 'unknown_organisation') {
      this.deps.logger.warn(
        { ...logged, stripe_subscription_id: sub.id },
        'a Stripe event names no organisation of this service: nothing changed',
      );
    }
    return result.outcome;
  }
}
