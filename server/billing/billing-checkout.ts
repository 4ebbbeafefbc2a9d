import type Stripe from 'stripe';
import type { BillingData } from '../../shared/api/billing';
import type { Role } from '../../shared/api/team';
import type { AuditActor } from '../audit/audit-log';
import { ContractError } from '../contract-error';
import { billingView } from './billing-view';
import { idOf } from './stripe-events';
import { isRunningStripeStatus } from './stripe-subscription';
import type { BillingJobDeps } from './subscription-changes';

/**
 * What an organisation's members see and its owner does from the console: the billing view, Stripe Checkout (and the
 * return from it) and the Customer Portal.
 */
export class BillingCheckout {
  constructor(private readonly deps: BillingJobDeps) {}

  view(organisationId: string, role: Role): BillingData {
    const sub = this.deps.accounts.subscriptionOfOrganisation(organisationId);
    return billingView(sub, { stripeMode: this.deps.stripe.connection !== null, role, now: this.deps.clock() });
  }

  /** A Checkout Session for the organisation's owner; answers the page to send the browser to. Stores nothing. */
  async checkout(organisationId: string, ownerEmail: string, origin: string): Promise<string> {
    const { stripe, settings } = this.deps.stripe.configured();
    const sub = this.deps.accounts.subscriptionOfOrganisation(organisationId);
    if (sub && isRunningStripeStatus(sub.stripe_status)) throw new ContractError('already_subscribed');
    const metadata = { organisation_id: organisationId };
    try {
      const session = await stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: settings.priceId, quantity: 1 }],
        client_reference_id: organisationId,
        ...(sub?.stripe_customer_id ? { customer: sub.stripe_customer_id } : { customer_email: ownerEmail }),
        metadata,
        subscription_data: { metadata },
        success_url: `${origin}/console/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${origin}/console/billing?checkout=cancelled`,
      });
      if (!session.url) throw new Error('Stripe answered a Checkout Session without a url');
      return session.url;
    } catch (err) {
      throw this.deps.stripe.unavailable(err, 'could not create a Checkout Session');
    }
  }

  /**
   * The console back from Checkout: reads the Checkout Session and, once paid, its subscription, and applies it now
   * rather than waiting for the webhook. A session of another organisation is not found.
   */
  async completeCheckout(
    organisationId: string,
    sessionId: string,
    who: { account_id: string; email: string; by: AuditActor },
  ): Promise<void> {
    const { stripe, connection } = this.deps.stripe.configured();
    let session: Stripe.Checkout.Session;
    try {
      session = await stripe.checkout.sessions.retrieve(sessionId);
    } catch (err) {
      if (connection.isMissing(err)) throw new ContractError('checkout_not_found');
      throw this.deps.stripe.unavailable(err, 'could not read a Checkout Session');
    }
    if (session.client_reference_id !== organisationId) throw new ContractError('checkout_not_found');
    const subscriptionId = idOf(session.subscription);
    if (!subscriptionId) return; // not paid (yet): the webhook applies it when it is
    const readAt = this.deps.clock();
    const sub = await this.deps.stripe.retrieve(subscriptionId);
    await this.deps.changes.apply(sub, {
      readAt,
      organisationHint: organisationId,
      event: null,
      by: who.by,
      reason: 'checkout_completed',
      who: { account_id: who.account_id, email: who.email },
    });
  }

  /** A Customer Portal session for the organisation's Stripe customer. */
  async portal(organisationId: string, origin: string): Promise<string> {
    const { stripe } = this.deps.stripe.configured();
    const customer = this.deps.accounts.subscriptionOfOrganisation(organisationId)?.stripe_customer_id;
    if (!customer) throw new ContractError('no_billing_account');
    try {
      const session = await stripe.billingPortal.sessions.create({ customer, return_url: `${origin}/console/billing` });
      return session.url;
    } catch (err) {
      throw this.deps.stripe.unavailable(err, 'could not create a Customer Portal session');
    }
  }
}
