import { z } from 'zod';
import { endpoint } from './endpoint';
import { IsoTimestamp, PLAN_NAME } from './keys';

/**
 * Billing (issue #27). With Stripe configured, an organisation's subscription is paid for through Stripe Checkout and
 * kept in step by Stripe's webhook; without it (operator mode, the default install) the operator sets subscriptions
 * with the admin CLI and the console only shows them.
 */

/** Why access ended, or will end at `ends_at`; what the console says of each is ACCESS_ENDED_WORDS. */
export const AccessEndedReason = z.enum([
  /** Cancelled (in the Customer Portal, or by Stripe); or set to stop at the end of the period paid for. */
  'cancelled',
  /** A renewal payment failed (Stripe: past_due): access continues for the grace days while Stripe retries. */
  'payment_failed',
  /** Stripe gave up retrying (unpaid). */
  'unpaid',
  /** The first payment was never completed (incomplete, incomplete_expired). */
  'incomplete',
  /** A trial ended without a payment method (paused). */
  'paused',
  /** The end date set by the operator passed. */
  'expired',
  /** The operator switched the subscription off. */
  'operator',
]);
export type AccessEndedReason = z.infer<typeof AccessEndedReason>;

/** The console's words for each reason, when access has ended. */
export const ACCESS_ENDED_WORDS: Record<AccessEndedReason, string> = {
  cancelled: 'The subscription was cancelled.',
  payment_failed: 'A payment failed and the grace period is over.',
  unpaid: 'Payments failed and Stripe stopped retrying.',
  incomplete: 'The first payment was not completed.',
  paused: 'The trial ended without a payment method.',
  expired: 'The subscription reached its end date.',
  operator: 'The service’s operator switched the subscription off.',
};

/** GET /api/v1/billing (any member): the subscription as the console's Billing page shows it. */
export const BillingData = z
  .object({
    mode: z.enum(['stripe', 'operator']).meta({
      description:
        'stripe: paid for through Stripe (Subscribe, Manage billing); operator: set by the operator of this service',
    }),
    plan: z.literal(PLAN_NAME),
    status: z.enum(['active', 'inactive']).meta({ description: 'Whether checks are answered now' }),
    expires_at: IsoTimestamp.nullable().meta({ description: 'When access ends if nothing changes; null = no end' }),
    renews_at: IsoTimestamp.nullable().meta({ description: 'When Stripe next charges for it; null when it will not' }),
    ends_at: IsoTimestamp.nullable().meta({
      description: 'When access ends or ended (cancelled at period end, grace after a failed payment, an end date)',
    }),
    ended_reason: AccessEndedReason.nullable().meta({ description: 'Why access ended, or will end at ends_at' }),
    stripe_status: z.string().nullable().meta({
      description: "Stripe's own status (active, trialing, past_due, canceled, unpaid…); null in operator mode",
    }),
    can_subscribe: z
      .boolean()
      .meta({ description: 'Whether Subscribe is offered (stripe mode, no running subscription)' }),
    can_manage_billing: z
      .boolean()
      .meta({ description: 'Whether Manage billing is offered (a Stripe customer exists)' }),
  })
  .meta({ id: 'Billing' });
export type BillingData = z.infer<typeof BillingData>;

/** POST /api/v1/billing/checkout and /api/v1/billing/portal: where the browser goes next (Stripe's page). */
export const BillingRedirectData = z
  .object({
    url: z.string().meta({
      description: "Stripe's page to send the browser to",
      example: 'https://checkout.stripe.com/c/pay/cs_test_a1',
    }),
  })
  .meta({ id: 'BillingRedirect' });
export type BillingRedirectData = z.infer<typeof BillingRedirectData>;

/**
 * POST /api/v1/billing/checkout/complete: the console, back from Checkout with `?session_id=cs_…`, asks the server to
 * read that Checkout Session from Stripe now, so access does not wait for the webhook (which may come later, or never).
 */
export const CheckoutCompleteRequest = z
  .object({ session_id: z.string().regex(/^cs_[A-Za-z0-9_]{1,255}$/, 'not a Checkout Session id') })
  .strict()
  .meta({ id: 'CheckoutCompleteRequest' });
export type CheckoutCompleteRequest = z.infer<typeof CheckoutCompleteRequest>;

/** POST /api/v1/billing/webhook's answer to Stripe (any 2xx stops its retries). */
export const WebhookReceivedData = z
  .object({
    received: z.literal(true),
    outcome: z.enum(['applied', 'unchanged', 'duplicate', 'ignored', 'unknown_organisation']),
  })
  .meta({ id: 'BillingWebhookReceived' });
export type WebhookReceivedData = z.infer<typeof WebhookReceivedData>;

/** The billing endpoints (issue #27): the console's subscription page, and Stripe's webhook. */
export const BILLING_ENDPOINTS = {
  view: endpoint({ method: 'get', path: '/api/v1/billing', data: BillingData }),
  checkout: endpoint({ method: 'post', path: '/api/v1/billing/checkout', data: BillingRedirectData }),
  completeCheckout: endpoint({
    method: 'post',
    path: '/api/v1/billing/checkout/complete',
    body: CheckoutCompleteRequest,
    data: BillingData,
  }),
  portal: endpoint({ method: 'post', path: '/api/v1/billing/portal', data: BillingRedirectData }),
  /** Stripe's deliveries: any JSON object, read as raw bytes and verified by its signature before it is parsed. */
  stripeWebhook: endpoint({
    method: 'post',
    path: '/api/v1/billing/webhook',
    body: z.object({}).loose(),
    data: WebhookReceivedData,
  }),
} as const;
