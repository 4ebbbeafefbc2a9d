import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { MANAGING_ROLES } from '../../shared/api/team';
import { WEBHOOK_ENDPOINTS, WebhookPayload, WebhookRequest, type WebhookData } from '../../shared/api/webhook';
import { isSubscriptionActive } from '../accounts/account-service';
import type { AuditRecorder } from '../audit/audit-log';
import { signedInActor } from '../activity/activity-actor';
import { sessionOrApiKey, type SessionOrApiKeyDeps } from '../auth/session-or-api-key';
import { ContractError } from '../contract-error';
import {
  API_KEY_REFUSALS,
  errorResponse,
  jsonRequestBody,
  NO_AUTH,
  SESSION_AUTH,
  SESSION_OR_API_KEY_AUTH,
  type ApiRegistry,
} from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { callerSubscription, requireRole, requireSession } from '../sessions/require-session';
import type { WebhookService } from './webhook-service';

/** The gate's `rateLimit` is the check's: a GET with `x-api-key` is counted as a check is. */
export interface WebhooksRoutesDeps extends SessionOrApiKeyDeps {
  webhooks: WebhookService;
  /** Where setting, replacing, removing and testing the webhook are recorded, with who did it. */
  audit: AuditRecorder;
}

/** What the audit trail keeps of a webhook URL: its host, never the path or query (they may hold a token). */
const hostOf = (url: string | null | undefined): string | undefined => (url ? new URL(url).host : undefined);

type WebhookEvent = 'webhook_set' | 'webhook_replaced' | 'webhook_removed' | 'webhook_tested';

/** Unknown fields are refused too, although the documented schema does not say so. */
const ExactWebhookRequest = WebhookRequest.strict();

const NO_WEBHOOK: WebhookData = { url: null, created_at: null, last_delivery: null };

const WEBHOOK_DELIVERY =
  'Each new batch of catchment alerts is POSTed to the URL as a WebhookPayload (`Content-Type: application/json`, `X-Delivery-Id`, and `X-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed by the secret>`); a 2xx answer counts as delivered, redirects are not followed, each attempt has 10 s. Failed deliveries are retried after 1 minute, doubling, at most hourly, until a day after the first attempt. Only http(s) URLs, and no loopback, private, link-local or other non-public address (the IANA special-purpose ranges; IPv4-mapped, NAT64 and 6to4 IPv6 by the IPv4 address inside; checked again on the addresses a host name resolves to) unless the server sets WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true.';

/**
 * PUT, GET and DELETE `/api/v1/webhook`, and POST `/api/v1/webhook/test` (behind the cookie session): the
 * subscription's one webhook. PUT returns the signing secret, this once; GET shows the URL and the last delivery, never
 * the secret.
 */
export function webhookRoutes(deps: WebhooksRoutesDeps): Route[] {
  const { audit } = deps;
  const context: WebhookContext = {
    ...deps,
    record: (event, url, req, res) => audit.record({ event, ...signedInActor(req, res), webhook_host: hostOf(url) }),
    session: requireSession(deps.accounts),
    managing: requireRole(...MANAGING_ROLES),
  };
  return [readRoute(context), setRoute(context), removeRoute(context), testRoute(context)];
}

interface WebhookContext extends WebhooksRoutesDeps {
  record: (event: WebhookEvent, url: string | null | undefined, req: Request, res: Response) => Promise<void>;
  session: RequestHandler;
  managing: RequestHandler;
}

/** The caller's subscription: every organisation has one (created with it); without one there is nothing to manage. */
function subscriptionOf(res: Response) {
  const subscription = callerSubscription(res);
  if (!subscription) throw new ContractError('subscription_inactive');
  return subscription;
}

function readRoute({ webhooks, ...deps }: WebhookContext): Route {
  return defineRoute({
    endpoint: WEBHOOK_ENDPOINTS.read,
    summary: "The webhook's URL and its last delivery (never the secret)",
    description: `url is null when none is set. ${WEBHOOK_DELIVERY}`,
    security: SESSION_OR_API_KEY_AUTH,
    authenticate: sessionOrApiKey(deps),
    ok: 'The webhook and the status of its newest delivery',
    responses: API_KEY_REFUSALS,
    handle: async (_input, _req, res) => {
      const data: WebhookData = (await webhooks.get(subscriptionOf(res).id)) ?? NO_WEBHOOK;
      res.json({ success: true, data });
    },
  });
}

function setRoute({ webhooks, clock, record, session, managing }: WebhookContext): Route {
  return defineRoute({
    endpoint: WEBHOOK_ENDPOINTS.set,
    summary: 'Set (or replace) the webhook; returns its signing secret once',
    description: `Replaces any webhook of the subscription, with a new secret. Setting, replacing, testing and removing it are recorded in the organisation's activity (GET /api/v1/activity) with who did it and the URL's host (never its path or the secret). ${WEBHOOK_DELIVERY}`,
    security: SESSION_AUTH,
    authenticate: session,
    gates: [managing],
    ok: 'The webhook, with its signing secret (shown this once)',
    responses: {
      400: errorResponse('invalid_webhook_url: not an http(s) URL to a public address; invalid_request / invalid_json'),
      403: errorResponse('API subscription is inactive, or request origin not allowed'),
      413: errorResponse('Request body over 10 kB'),
      415: errorResponse('Content-Type is not application/json'),
    },
    handle: async ({ body }, req, res) => {
      if (!ExactWebhookRequest.safeParse(req.body).success) throw new ContractError('invalid_request');
      const subscription = subscriptionOf(res);
      if (!isSubscriptionActive(subscription, clock())) throw new ContractError('subscription_inactive');
      const before = await webhooks.get(subscription.id);
      const data = await webhooks.set(subscription.id, body.url);
      await record(before ? 'webhook_replaced' : 'webhook_set', data.url, req, res);
      res.json({ success: true, data });
    },
  });
}

/**
 * The caller's webhook acted on — `act` answers null when there was none (404 no_webhook) — then recorded with the URL
 * it had, and what `act` answered sent.
 */
function onWebhook<T>(
  { webhooks, record }: WebhookContext,
  event: 'webhook_removed' | 'webhook_tested',
  act: (subscriptionId: string) => Promise<T | null>,
) {
  return async (_input: unknown, req: Request, res: Response) => {
    const subscription = subscriptionOf(res);
    const before = await webhooks.get(subscription.id);
    const data = await act(subscription.id);
    if (data === null) throw new ContractError('no_webhook');
    await record(event, before?.url, req, res);
    res.json({ success: true, data });
  };
}

const NO_WEBHOOK_SET = { 404: errorResponse('No webhook is set') };

function removeRoute(context: WebhookContext): Route {
  const { webhooks, session, managing } = context;
  return defineRoute({
    endpoint: WEBHOOK_ENDPOINTS.remove,
    summary: 'Remove the webhook (deliveries still queued are dropped)',
    security: SESSION_AUTH,
    authenticate: session,
    gates: [managing],
    ok: 'Removed (every field null)',
    responses: { 403: errorResponse('Request origin not allowed'), ...NO_WEBHOOK_SET },
    handle: onWebhook(context, 'webhook_removed', async (id) => ((await webhooks.remove(id)) ? NO_WEBHOOK : null)),
  });
}

function testRoute(context: WebhookContext): Route {
  const { webhooks, session, managing } = context;
  return defineRoute({
    endpoint: WEBHOOK_ENDPOINTS.test,
    summary: 'Send one signed test delivery now (owners and admins)',
    description:
      'POSTs `{"event": "test", "alerts": []}` to the webhook, signed as every delivery is, within 10 s, and answers how it went. Not queued, not retried, not shown as the last delivery.',
    security: SESSION_AUTH,
    // The session as a gate rather than `authenticate`: a wrong method is answered 405 before the session is looked at.
    gates: [session, managing],
    ok: 'How the test delivery went',
    responses: { 403: errorResponse('forbidden_role (members), or request origin not allowed'), ...NO_WEBHOOK_SET },
    handle: onWebhook(context, 'webhook_tested', (id) => webhooks.sendTest(id)),
  });
}

/**
 * Each new batch of alerts is POSTed to the subscription's webhook, signed: the `webhooks` section (OpenAPI 3.1), which
 * documents what this server sends rather than a route it serves (server/docs/openapi.ts calls it).
 */
export function registerWebhookDelivery(registry: ApiRegistry): void {
  registry.registerWebhook({
    method: 'post',
    path: 'alerts',
    summary: "A batch of new catchment alerts, POSTed to the subscription's webhook URL",
    description:
      'Verify `X-Signature` before trusting the body: HMAC-SHA256 of the raw body bytes with the secret PUT returned, hex, after `sha256=`, compared in constant time. `X-Delivery-Id` is the same on every attempt of one delivery.',
    // The receiver authenticates the request by its signature, which no OpenAPI security scheme can express.
    security: NO_AUTH,
    request: {
      headers: z.object({
        'X-Signature': z.string().meta({ description: 'sha256=<hex HMAC-SHA256 of the raw body>' }),
        'X-Delivery-Id': z.string().meta({ description: 'The delivery (the same on retries)' }),
      }),
      ...jsonRequestBody(WebhookPayload),
    },
    responses: { 200: { description: 'Any 2xx: delivered. Anything else, or no answer within 10 s: retried.' } },
  });
  // The payload (and its Alert) as components, so that the section's $ref resolves.
  registry.registerSchema(WebhookPayload);
}
