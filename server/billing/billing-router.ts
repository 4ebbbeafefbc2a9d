import express, { Router, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import {
  BillingData,
  BillingRedirectData,
  CheckoutCompleteRequest,
  type WebhookReceivedData as WebhookReceived,
  WebhookReceivedData,
} from '../../shared/api/billing';
import { successEnvelope } from '../../shared/api/envelope';
import type { AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { bodyParserError, jsonBody } from '../http/json-body';
import { methodNotAllowed } from '../http/method-not-allowed';
import { errorResponse, jsonRequestBody, jsonResponse, SESSION_AUTH, type ApiRegistry } from '../http/openapi-registry';
import { withValidBody } from '../http/validate-request';
import type { OriginPolicy } from '../sessions/origin-policy';
import { requireRole, requireSession, signedInAccount, signedInMember } from '../sessions/require-session';
import { BillingError, type BillingService } from './billing-service';

/** How long a client waits before asking again after billing_unavailable. */
const RETRY_AFTER_SECONDS = '30';
/** Stripe's events are a few kilobytes; its documented ceiling is far below this. */
const WEBHOOK_BODY_LIMIT = '1mb';
const STRIPE_SIGNATURE_SCHEME = 'stripeSignature';

/** For `.catch`: billing's refusals as their contract errors. */
function rethrowBillingError(err: unknown): never {
  if (err instanceof BillingError) {
    const headers: Record<string, string> =
      err.code === 'billing_unavailable' ? { 'Retry-After': RETRY_AFTER_SECONDS } : {};
    throw new ContractError(err.code, { headers });
  }
  throw err;
}

export interface BillingRouterDeps {
  billing: BillingService;
  accounts: AccountService;
  origins: OriginPolicy;
}

/**
 * /api/v1/billing (behind the cookie session): the organisation's subscription for any member; Subscribe (Stripe
 * Checkout), the return from it and Manage billing (the Customer Portal) for owners.
 */
export function billingRouter({ billing, accounts, origins }: BillingRouterDeps): Router {
  const answerView = (res: Response) => {
    const member = signedInMember(res);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, data: billing.view(member.organisation_id, member.role) satisfies BillingData });
  };
  const redirectTo = (res: Response, url: string) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, data: { url } satisfies BillingRedirectData });
  };

  const checkout: RequestHandler = async (req, res) => {
    const organisationId = signedInMember(res).organisation_id;
    const url = await billing
      .checkout(organisationId, signedInAccount(res).email, origins.linkOrigin(req))
      .catch(rethrowBillingError);
    redirectTo(res, url);
  };
  const complete = withValidBody(
    CheckoutCompleteRequest,
    () => 'invalid_request',
    async ({ session_id }, req, res) => {
      const account = signedInAccount(res);
      await billing
        .completeCheckout(signedInMember(res).organisation_id, session_id, {
          account_id: account.id,
          email: account.email,
          by: { source: 'web', ip: clientAddress(req) },
        })
        .catch(rethrowBillingError);
      answerView(res);
    },
  );
  const portal: RequestHandler = async (req, res) => {
    const url = await billing
      .portal(signedInMember(res).organisation_id, origins.linkOrigin(req))
      .catch(rethrowBillingError);
    redirectTo(res, url);
  };

  const router = Router();
  router.use(requireSession(accounts));
  router.get('/', (_req, res) => answerView(res));
  router.all('/', methodNotAllowed('GET, HEAD'));
  const owner = requireRole('owner');
  router.post('/checkout', owner, checkout);
  router.all('/checkout', methodNotAllowed('POST'));
  router.post('/checkout/complete', owner, jsonBody, complete);
  router.all('/checkout/complete', methodNotAllowed('POST'));
  router.post('/portal', owner, portal);
  router.all('/portal', methodNotAllowed('POST'));
  return router;
}

const readRawBody = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT });

/**
 * POST /api/v1/billing/webhook: Stripe's deliveries. No session and no Origin check: the Stripe-Signature over the
 * exact bytes is the credential, so the body is read raw (never parsed before it is verified).
 */
export function billingWebhookRouter(billing: BillingService): Router {
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
    const outcome = await billing.receiveWebhook(body, req.get('stripe-signature')).catch(rethrowBillingError);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, data: { received: true, outcome } satisfies WebhookReceived });
  };
  const router = Router();
  router.post('/', configured, jsonOnly, raw, receive);
  router.all('/', methodNotAllowed('POST'));
  return router;
}

/** The billing operations in the OpenAPI document (issue #27). */
export function registerBillingPaths(registry: ApiRegistry): void {
  registry.registerComponent('securitySchemes', STRIPE_SIGNATURE_SCHEME, {
    type: 'apiKey',
    in: 'header',
    name: 'Stripe-Signature',
    description:
      "Stripe's signature of the exact body with the webhook endpoint's signing secret (STRIPE_WEBHOOK_SECRET)",
  });
  const notConfigured = { 404: errorResponse('billing_not_configured: operator mode (no STRIPE_* variables)') };
  const unavailable = { 503: errorResponse('billing_unavailable: Stripe could not be reached; nothing was changed') };
  const ownerOnly = {
    401: errorResponse('Sign in required'),
    403: errorResponse('forbidden_role: owners only; forbidden_origin'),
  };
  registry.registerPath({
    method: 'get',
    path: '/api/v1/billing',
    summary: "The organisation's subscription: plan, status, renewal or end date, why access ended (any member)",
    security: SESSION_AUTH,
    responses: {
      200: jsonResponse(successEnvelope(BillingData), 'The subscription'),
      401: errorResponse('Sign in required'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/billing/checkout',
    summary: 'Subscribe: a Stripe Checkout Session for the organisation (owners); send the browser to its url',
    security: SESSION_AUTH,
    responses: {
      200: jsonResponse(successEnvelope(BillingRedirectData), "Stripe Checkout's page"),
      ...ownerOnly,
      ...notConfigured,
      409: errorResponse('already_subscribed: a Stripe subscription already runs'),
      ...unavailable,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/billing/checkout/complete',
    summary: 'Back from Checkout: apply its subscription now rather than waiting for the webhook (owners)',
    security: SESSION_AUTH,
    request: jsonRequestBody(CheckoutCompleteRequest),
    responses: {
      200: jsonResponse(successEnvelope(BillingData), 'The subscription, as Stripe says it is now'),
      400: errorResponse('invalid_request: not a Checkout Session id'),
      ...ownerOnly,
      404: errorResponse('checkout_not_found: no such Checkout Session for this organisation; billing_not_configured'),
      ...unavailable,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/billing/portal',
    summary: "Manage billing: a Stripe Customer Portal session for the organisation's customer (owners)",
    security: SESSION_AUTH,
    responses: {
      200: jsonResponse(successEnvelope(BillingRedirectData), "Stripe's Customer Portal page"),
      ...ownerOnly,
      ...notConfigured,
      409: errorResponse('no_billing_account: no Stripe customer yet (subscribe first)'),
      ...unavailable,
    },
  });
  registerWebhookPath(registry);
}

function registerWebhookPath(registry: ApiRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/api/v1/billing/webhook',
    summary: "Stripe's webhook endpoint (for Stripe only): subscription, checkout and invoice events",
    description:
      'Verified on the exact body with the Stripe-Signature header (at most 5 minutes old). Each event is applied once (by its id) from the subscription as Stripe says it is when read back, whatever order events arrive in; never from the event’s own copy. A signed event that names no subscription (no object, an id of another shape) is acknowledged as ignored, since a retry would bring the same bytes; a subscription Stripe answers 404 for gives no access.',
    security: [{ [STRIPE_SIGNATURE_SCHEME]: [] }],
    request: { body: { required: true, content: { 'application/json': { schema: z.object({}).loose() } } } },
    responses: {
      200: jsonResponse(successEnvelope(WebhookReceivedData), 'Received (applied, unchanged, duplicate, ignored…)'),
      400: errorResponse('invalid_signature: missing, wrong or stale signature; invalid_json'),
      404: errorResponse('billing_not_configured: operator mode (no STRIPE_* variables)'),
      413: errorResponse('payload_too_large'),
      415: errorResponse('unsupported_media_type: not JSON'),
      503: errorResponse('billing_unavailable: Stripe could not be read back; Stripe retries the delivery'),
    },
  });
}
