import express, { type RequestHandler, type Response } from 'express';
import {
  BILLING_ENDPOINTS,
  type BillingData,
  type BillingRedirectData,
  type WebhookReceivedData,
} from '../../shared/api/billing';
import type { AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { bodyParserError } from '../http/json-body';
import { errorResponse, SESSION_AUTH, STRIPE_SIGNATURE_SCHEME } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import type { OriginPolicy } from '../sessions/origin-policy';
import { requireRole, requireSession, signedInAccount, signedInMember } from '../sessions/require-session';
import type { BillingService } from './billing-service';

/** Stripe's events are a few kilobytes; its documented ceiling is far below this. */
const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

export interface BillingRoutesDeps {
  billing: BillingService;
  accounts: AccountService;
  origins: OriginPolicy;
}

const NOT_CONFIGURED = { 404: errorResponse('billing_not_configured: operator mode (no STRIPE_* variables)') };
const UNAVAILABLE = { 503: errorResponse('billing_unavailable: Stripe could not be reached; nothing was changed') };
const OWNERS_ONLY = {
  401: errorResponse('Sign in required'),
  403: errorResponse('forbidden_role: owners only; forbidden_origin'),
};

/**
 * /api/v1/billing (behind the cookie session): the organisation's subscription for any member; Subscribe (Stripe
 * Checkout), the return from it and Manage billing (the Customer Portal) for owners.
 */
export function billingRoutes(deps: BillingRoutesDeps): Route[] {
  const context = { ...deps, authenticate: requireSession(deps.accounts), owner: requireRole('owner') };
  return [viewRoute(context), checkoutRoute(context), completeCheckoutRoute(context), portalRoute(context)];
}

interface BillingContext extends BillingRoutesDeps {
  authenticate: RequestHandler;
  owner: RequestHandler;
}

function answerView(billing: BillingService, res: Response): void {
  const member = signedInMember(res);
  res.setHeader('Cache-Control', 'no-store');
  res.json({ success: true, data: billing.view(member.organisation_id, member.role) satisfies BillingData });
}

function redirectTo(res: Response, url: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.json({ success: true, data: { url } satisfies BillingRedirectData });
}

function viewRoute({ billing, authenticate }: BillingContext): Route {
  return defineRoute({
    endpoint: BILLING_ENDPOINTS.view,
    summary: "The organisation's subscription: plan, status, renewal or end date, why access ended (any member)",
    security: SESSION_AUTH,
    authenticate,
    ok: 'The subscription',
    handle: (_input, _req, res) => answerView(billing, res),
  });
}

function checkoutRoute({ billing, origins, authenticate, owner }: BillingContext): Route {
  return defineRoute({
    endpoint: BILLING_ENDPOINTS.checkout,
    summary: 'Subscribe: a Stripe Checkout Session for the organisation (owners); send the browser to its url',
    security: SESSION_AUTH,
    authenticate,
    gates: [owner],
    ok: "Stripe Checkout's page",
    responses: {
      ...OWNERS_ONLY,
      ...NOT_CONFIGURED,
      409: errorResponse('already_subscribed: a Stripe subscription already runs'),
      ...UNAVAILABLE,
    },
    handle: async (_input, req, res) => {
      const organisationId = signedInMember(res).organisation_id;
      redirectTo(res, await billing.checkout(organisationId, signedInAccount(res).email, origins.linkOrigin(req)));
    },
  });
}

function completeCheckoutRoute({ billing, authenticate, owner }: BillingContext): Route {
  return defineRoute({
    endpoint: BILLING_ENDPOINTS.completeCheckout,
    summary: 'Back from Checkout: apply its subscription now rather than waiting for the webhook (owners)',
    security: SESSION_AUTH,
    authenticate,
    gates: [owner],
    ok: 'The subscription, as Stripe says it is now',
    responses: {
      400: errorResponse('invalid_request: not a Checkout Session id'),
      ...OWNERS_ONLY,
      404: errorResponse('checkout_not_found: no such Checkout Session for this organisation; billing_not_configured'),
      ...UNAVAILABLE,
    },
    handle: async ({ body }, req, res) => {
      const account = signedInAccount(res);
      await billing.completeCheckout(signedInMember(res).organisation_id, body.session_id, {
        account_id: account.id,
        email: account.email,
        by: { source: 'web', ip: clientAddress(req) },
      });
      answerView(billing, res);
    },
  });
}

function portalRoute({ billing, origins, authenticate, owner }: BillingContext): Route {
  return defineRoute({
    endpoint: BILLING_ENDPOINTS.portal,
    summary: "Manage billing: a Stripe Customer Portal session for the organisation's customer (owners)",
    security: SESSION_AUTH,
    authenticate,
    gates: [owner],
    ok: "Stripe's Customer Portal page",
    responses: {
      ...OWNERS_ONLY,
      ...NOT_CONFIGURED,
      409: errorResponse('no_billing_account: no Stripe customer yet (subscribe first)'),
      ...UNAVAILABLE,
    },
    handle: async (_input, req, res) => {
      redirectTo(res, await billing.portal(signedInMember(res).organisation_id, origins.linkOrigin(req)));
    },
  });
}

const readRawBody = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT_BYTES });

/**
 * POST /api/v1/billing/webhook: Stripe's deliveries. No session and no Origin check: the Stripe-Signature over the
 * exact bytes is the credential, so the body is read raw (never parsed before it is verified).
 */
export function stripeWebhookRoutes(billing: BillingService): Route[] {
  const configured: RequestHandler = (_req, _res, next) => {
    next(billing.mode === 'stripe' ? undefined : new ContractError('billing_not_configured'));
  };
  const jsonOnly: RequestHandler = (req, _res, next) => {
    next(req.is(['application/json', 'application/*+json']) ? undefined : new ContractError('unsupported_media_type'));
  };
  const raw: RequestHandler = (req, res, next) =>
    readRawBody(req, res, (err?: unknown) => (err === undefined ? next() : next(bodyParserError(err))));
  const receive: RequestHandler = async (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const outcome = await billing.receiveWebhook(body, req.get('stripe-signature'));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, data: { received: true, outcome } satisfies WebhookReceivedData });
  };
  return [
    defineRoute({
      endpoint: BILLING_ENDPOINTS.stripeWebhook,
      summary: "Stripe's webhook endpoint (for Stripe only): subscription, checkout and invoice events",
      description:
        'Verified on the exact body with the Stripe-Signature header (at most 5 minutes old). Each event is applied once (by its id) from the subscription as Stripe says it is when read back, whatever order events arrive in; never from the event’s own copy. A signed event that names no subscription (no object, an id of another shape) is acknowledged as ignored, since a retry would bring the same bytes; a subscription Stripe answers 404 for gives no access.',
      security: [{ [STRIPE_SIGNATURE_SCHEME]: [] }],
      bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
      ok: 'Received (applied, unchanged, duplicate, ignored…)',
      responses: {
        400: errorResponse('invalid_signature: missing, wrong or stale signature; invalid_json'),
        404: errorResponse('billing_not_configured: operator mode (no STRIPE_* variables)'),
        413: errorResponse('payload_too_large'),
        415: errorResponse('unsupported_media_type: not JSON'),
        503: errorResponse('billing_unavailable: Stripe could not be read back; Stripe retries the delivery'),
      },
      handlers: [configured, jsonOnly, raw, receive],
    }),
  ];
}
