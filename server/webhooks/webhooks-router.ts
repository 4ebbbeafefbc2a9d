import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { successEnvelope } from '../../shared/api/envelope';
import { NewWebhookData, WebhookData, WebhookPayload, WebhookRequest, WebhookTestData } from '../../shared/api/webhook';
import { isSubscriptionActive } from '../accounts/account-service';
import type { AuditRecorder } from '../audit/audit-log';
import { signedInActor } from '../activity/activity-actor';
import { sessionOrApiKey, type SessionOrApiKeyDeps } from '../auth/session-or-api-key';
import { ContractError } from '../contract-error';
import { jsonBody } from '../http/json-body';
import { methodNotAllowed } from '../http/method-not-allowed';
import {
  API_KEY_REFUSALS,
  errorResponse,
  jsonRequestBody,
  jsonResponse,
  NO_AUTH,
  SESSION_AUTH,
  SESSION_OR_API_KEY_AUTH,
  type ApiRegistry,
} from '../http/openapi-registry';
import { withValidBody } from '../http/validate-request';
import { MANAGING_ROLES } from '../../shared/api/team';
import { callerSubscription, requireRole, requireSession } from '../sessions/require-session';
import { WebhookError, type WebhookService } from './webhook-service';

/** The gate's `rateLimit` is the check's: a GET with `x-api-key` is counted as a check is. */
export interface WebhooksRouterDeps extends SessionOrApiKeyDeps {
  webhooks: WebhookService;
  /** Where setting, replacing, removing and testing the webhook are recorded, with who did it. */
  audit: AuditRecorder;
}

/** What the audit trail keeps of a webhook URL: its host, never the path or query (they may hold a token). */
const hostOf = (url: string | null | undefined): string | undefined => (url ? new URL(url).host : undefined);

/**
 * PUT, GET and DELETE `/api/v1/webhook` (mounted behind the cookie session): the subscription's one webhook. PUT
 * returns the signing secret, this once; GET shows the URL and the last delivery, never the secret.
 */
export function webhooksRouter(deps: WebhooksRouterDeps): Router {
  const { webhooks, accounts, clock, audit } = deps;
  const record = (
    event: 'webhook_set' | 'webhook_replaced' | 'webhook_removed' | 'webhook_tested',
    url: string | null | undefined,
    req: Request,
    res: Response,
  ) => audit.record({ event, ...signedInActor(req, res), webhook_host: hostOf(url) });
  const subscriptionOf = (res: Response) => {
    const subscription = callerSubscription(res);
    // Every organisation has one (created with it); without one the caller has nothing to manage.
    if (!subscription) throw new ContractError('subscription_inactive');
    return subscription;
  };

  const put = withValidBody(
    WebhookRequest.strict(),
    () => 'invalid_request',
    async ({ url }, req, res: Response) => {
      const subscription = subscriptionOf(res);
      if (!isSubscriptionActive(subscription, clock())) throw new ContractError('subscription_inactive');
      const before = await webhooks.get(subscription.id);
      const data: NewWebhookData = await webhooks.set(subscription.id, url).catch((err: unknown) => {
        if (err instanceof WebhookError) throw new ContractError('invalid_webhook_url');
        throw err;
      });
      await record(before ? 'webhook_replaced' : 'webhook_set', data.url, req, res);
      res.json({ success: true, data });
    },
  );

  const get: RequestHandler = async (_req, res) => {
    const subscription = subscriptionOf(res);
    const data: WebhookData = (await webhooks.get(subscription.id)) ?? {
      url: null,
      created_at: null,
      last_delivery: null,
    };
    res.json({ success: true, data });
  };

  const remove: RequestHandler = async (req, res) => {
    const subscription = subscriptionOf(res);
    const before = await webhooks.get(subscription.id);
    if (!(await webhooks.remove(subscription.id))) throw new ContractError('no_webhook');
    await record('webhook_removed', before?.url, req, res);
    res.json({ success: true, data: { url: null, created_at: null, last_delivery: null } satisfies WebhookData });
  };

  const sendTest: RequestHandler = async (req, res) => {
    const subscription = subscriptionOf(res);
    const hook = await webhooks.get(subscription.id);
    const data: WebhookTestData | null = await webhooks.sendTest(subscription.id);
    if (!data) throw new ContractError('no_webhook');
    await record('webhook_tested', hook?.url, req, res);
    res.json({ success: true, data });
  };

  const router = Router();
  router.get('/', sessionOrApiKey(deps), get);
  const managing = [requireSession(accounts), requireRole(...MANAGING_ROLES)];
  router.put('/', ...managing, jsonBody, put);
  router.delete('/', ...managing, remove);
  router.all('/', methodNotAllowed('GET, HEAD, PUT, DELETE'));
  router.post('/test', ...managing, sendTest);
  router.all('/test', methodNotAllowed('POST'));
  return router;
}

/** Each new batch of alerts is POSTed to the subscription's webhook, signed: the `webhooks` section (OpenAPI 3.1). */
function registerWebhookDelivery(registry: ApiRegistry): void {
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

const WEBHOOK_DELIVERY =
  'Each new batch of catchment alerts is POSTed to the URL as a WebhookPayload (`Content-Type: application/json`, `X-Delivery-Id`, and `X-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed by the secret>`); a 2xx answer counts as delivered, redirects are not followed, each attempt has 10 s. Failed deliveries are retried after 1 minute, doubling, at most hourly, until a day after the first attempt. Only http(s) URLs, and no loopback, private, link-local or other non-public address (the IANA special-purpose ranges; IPv4-mapped, NAT64 and 6to4 IPv6 by the IPv4 address inside; checked again on the addresses a host name resolves to) unless the server sets WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true.';

/** The webhook's operations in the OpenAPI document (issue #17): one per subscription, and what it receives. */
export function registerWebhooksPaths(registry: ApiRegistry): void {
  registerWebhookDelivery(registry);
  registry.registerPath({
    method: 'put',
    path: '/api/v1/webhook',
    summary: 'Set (or replace) the webhook; returns its signing secret once',
    description: `Replaces any webhook of the subscription, with a new secret. Setting, replacing, testing and removing it are recorded in the organisation's activity (GET /api/v1/activity) with who did it and the URL's host (never its path or the secret). ${WEBHOOK_DELIVERY}`,
    security: SESSION_AUTH,
    request: jsonRequestBody(WebhookRequest),
    responses: {
      200: jsonResponse(successEnvelope(NewWebhookData), 'The webhook, with its signing secret (shown this once)'),
      400: errorResponse('invalid_webhook_url: not an http(s) URL to a public address; invalid_request / invalid_json'),
      401: errorResponse('Sign in required'),
      403: errorResponse('API subscription is inactive, or request origin not allowed'),
      413: errorResponse('Request body over 10 kB'),
      415: errorResponse('Content-Type is not application/json'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/webhook',
    summary: "The webhook's URL and its last delivery (never the secret)",
    description: `url is null when none is set. ${WEBHOOK_DELIVERY}`,
    security: SESSION_OR_API_KEY_AUTH,
    responses: {
      200: jsonResponse(successEnvelope(WebhookData), 'The webhook and the status of its newest delivery'),
      ...API_KEY_REFUSALS,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/webhook/test',
    summary: 'Send one signed test delivery now (owners and admins)',
    description:
      'POSTs `{"event": "test", "alerts": []}` to the webhook, signed as every delivery is, within 10 s, and answers how it went. Not queued, not retried, not shown as the last delivery.',
    security: SESSION_AUTH,
    responses: {
      200: jsonResponse(successEnvelope(WebhookTestData), 'How the test delivery went'),
      401: errorResponse('Sign in required'),
      403: errorResponse('forbidden_role (members), or request origin not allowed'),
      404: errorResponse('No webhook is set'),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/v1/webhook',
    summary: 'Remove the webhook (deliveries still queued are dropped)',
    security: SESSION_AUTH,
    responses: {
      200: jsonResponse(successEnvelope(WebhookData), 'Removed (every field null)'),
      401: errorResponse('Sign in required'),
      403: errorResponse('Request origin not allowed'),
      404: errorResponse('No webhook is set'),
    },
  });
}
