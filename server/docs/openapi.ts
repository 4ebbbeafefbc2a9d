import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { LoginRequest, SessionData } from '../../shared/api/auth';
import { CheckRequest, CheckResponse } from '../../shared/api/check';
import { ErrorEnvelope, successEnvelope } from '../../shared/api/envelope';
import { Health } from '../../shared/api/health';
import { KeyStatusData, NewKeyData, RevokedKeyData } from '../../shared/api/keys';
import { AlertsData, AlertsQuery } from '../../shared/api/alerts';
import { CATCHMENT_CSV_COLUMNS, CatchmentRequest, CatchmentResponse } from '../../shared/api/catchment';
import { NewWebhookData, WebhookData, WebhookPayload, WebhookRequest } from '../../shared/api/webhook';

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const error = (description: string) => json(ErrorEnvelope, description);

const rateLimitHeaders = z.object({
  'X-RateLimit-Limit': z.string().meta({ description: 'Requests allowed per 60-second sliding window' }),
  'X-RateLimit-Remaining': z.string().meta({ description: 'Requests left in the current window' }),
  'X-RateLimit-Reset': z.string().meta({ description: 'Seconds until the oldest counted request leaves the window' }),
});

/** The OpenAPI 3.1 document, generated from the same zod schemas the server validates with. */
export function buildOpenApiDocument(): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  const apiKey = registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
  });
  const session = registry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: 'dte.sid',
  });
  // Declared on every operation, `[]` where no credentials are read, so that a missing declaration never reads as
  // "whatever the document's default is" (there is none).
  const noAuth: { [scheme: string]: string[] }[] = [];
  // Read when present, not required: `{}` is the alternative of sending no credentials at all.
  const optionalSession = [{ [session.name]: [] }, {}];

  registry.registerPath({
    method: 'post',
    path: '/api/v1/check-postcode',
    summary: 'Is this postcode under an active disaster declaration?',
    description:
      'Checks one Australian postcode against the disaster declarations (DRFA activations) and answers with the eligibility summary, location, proforma text for the clinical notes, the related declarations and disclaimers. Checks run in this order: key header, key, subscription, rate limit, body.',
    security: [{ [apiKey.name]: [] }],
    request: { body: { required: true, content: { 'application/json': { schema: CheckRequest } } } },
    responses: {
      200: { ...json(CheckResponse, 'The eligibility answer'), headers: rateLimitHeaders },
      400: error('Invalid postcode format, invalid JSON, invalid date or suburb'),
      401: error('Missing x-api-key header / Invalid API key'),
      403: error('API subscription is inactive'),
      404: error('Postcode not found'),
      413: error('Request body over 10 kB'),
      415: error('Content-Type is not application/json'),
      429: error('Rate limit exceeded; wait Retry-After seconds'),
      503: error(
        'Disaster data is not available yet (before the first refresh), or rate limiting is unavailable (the shared counter cannot be reached); wait Retry-After seconds',
      ),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness and data freshness',
    security: noAuth,
    responses: { 200: json(Health, 'The service is up') },
  });

  registry.registerPath({
    method: 'post',
    path: '/api/v1/auth/login',
    summary: 'Sign in; sets the session cookie',
    description:
      'Sets `dte.sid` (httpOnly, SameSite=Lax, Path=/api/v1, Secure over HTTPS) with a new session id. Sessions end after 30 idle minutes or 12 hours (SESSION_IDLE_MINUTES, SESSION_ABSOLUTE_HOURS). Failed attempts are limited per email (5) and per client address (20) in 15 minutes; while limited, even the right password gets 429 with Retry-After.',
    security: noAuth,
    request: { body: { required: true, content: { 'application/json': { schema: LoginRequest } } } },
    responses: {
      200: json(successEnvelope(SessionData), 'Signed in'),
      400: error('Invalid request body or JSON'),
      401: error('Invalid email or password (the same answer for an unknown email)'),
      403: error('Request origin is not allowed (a session cookie sent from another site)'),
      413: error('Request body over 10 kB'),
      415: error('Content-Type is not application/json'),
      429: error('Too many failed attempts; wait Retry-After seconds'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/auth/logout',
    summary: 'Sign out',
    description: 'Ends the session the cookie names, if any; answers the same when signed out.',
    security: optionalSession,
    responses: { 200: json(successEnvelope(SessionData), 'Signed out'), 403: error('Request origin is not allowed') },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/auth/session',
    summary: 'The current session',
    security: optionalSession,
    responses: { 200: json(successEnvelope(SessionData), 'Who is signed in, if anyone') },
  });

  const KEY_ACTIONS_LIMITED =
    'Rate limit exceeded: 10 key actions (generate, regenerate, revoke) per account per hour; wait Retry-After seconds';
  const keyPath = (
    path: string,
    summary: string,
    responses: Parameters<typeof registry.registerPath>[0]['responses'],
  ) =>
    registry.registerPath({
      method: path.endsWith('status') ? 'get' : 'post',
      path,
      summary,
      security: [{ [session.name]: [] }],
      responses,
    });
  keyPath('/api/v1/keys/generate', 'Create the API key (shown once)', {
    201: json(successEnvelope(NewKeyData), 'The new key'),
    401: error('Sign in required'),
    403: error('API subscription is inactive, or request origin not allowed'),
    409: error('An active API key already exists'),
    429: error(KEY_ACTIONS_LIMITED),
  });
  keyPath('/api/v1/keys/regenerate', 'Replace the active key (the old one stops working at once)', {
    201: json(successEnvelope(NewKeyData), 'The new key'),
    401: error('Sign in required'),
    403: error('API subscription is inactive, or request origin not allowed'),
    404: error('No active API key'),
    429: error(KEY_ACTIONS_LIMITED),
  });
  keyPath('/api/v1/keys/revoke', 'Revoke the active key for good', {
    200: json(successEnvelope(RevokedKeyData), 'Revoked'),
    401: error('Sign in required'),
    403: error('Request origin not allowed'),
    404: error('No active API key'),
    429: error(KEY_ACTIONS_LIMITED),
  });
  keyPath('/api/v1/keys/status', 'Subscription, key and rate-limit status', {
    200: json(successEnvelope(KeyStatusData), 'Status'),
    401: error('Sign in required'),
  });
  // The session-cookie endpoints answer `Cache-Control: no-store`; POSTs carrying the cookie must come from the
  // server's own origin or an allowed extension origin (EXTENSION_ORIGINS), else 403 forbidden_origin.

  // The catchment and its alerts (issue #17): the cookie session, or an API key for the GETs (counted like a check).
  const keyOrSession = [{ [session.name]: [] }, { [apiKey.name]: [] }];
  const keyRefusals = {
    401: error('Sign in required, or (with x-api-key) Invalid API key'),
    403: error('API subscription is inactive (x-api-key)'),
    429: error('Rate limit exceeded (x-api-key, counted like the check); wait Retry-After seconds'),
  };
  const CATCHMENT_ROWS =
    'One row per postcode, ascending: the colour of the check (green, amber, red) or `unknown` when the current data cannot tell its LGA, eligibility, the principal LGA, all LGAs and the AGRNs of the active declarations covering it, computed from the current data.';
  registry.registerPath({
    method: 'put',
    path: '/api/v1/catchment',
    summary: "Replace the practice's catchment (up to 5,000 postcodes)",
    description: `Distinct postcodes (repeats count once). Every invalid or unknown postcode is listed in one 400 invalid_postcode (\`error.details\`). Alerts for a postcode start after the next refresh, which is its baseline. Answers as GET. ${CATCHMENT_ROWS}`,
    security: [{ [session.name]: [] }],
    request: { body: { required: true, content: { 'application/json': { schema: CatchmentRequest } } } },
    responses: {
      200: json(CatchmentResponse, 'The catchment as saved'),
      400: error(
        'invalid_postcode (error.details lists the offending values), catchment_too_large (over 5000 distinct, or over 20000 entries), invalid_request, invalid_json',
      ),
      401: error('Sign in required'),
      403: error('API subscription is inactive, or request origin not allowed'),
      413: error('Request body over 512 kB'),
      415: error('Content-Type is not application/json'),
      503: error('Disaster data is not available yet (before the first refresh)'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/catchment',
    summary: "The catchment's postcodes and their eligibility now (JSON, or CSV with ?format=csv)",
    description: `${CATCHMENT_ROWS} \`?format=csv\` answers \`text/csv\` (attachment catchment.csv) with the columns ${CATCHMENT_CSV_COLUMNS.join(', ')}; lists joined with "; ".`,
    security: keyOrSession,
    request: { query: z.object({ format: z.enum(['json', 'csv']).optional() }) },
    responses: {
      200: {
        description: 'The catchment',
        content: {
          'application/json': { schema: CatchmentResponse },
          'text/csv': { schema: z.string().meta({ description: 'Header row, then one row per postcode' }) },
        },
      },
      400: error('invalid_request: unknown format'),
      ...keyRefusals,
      503: error('Disaster data is not available yet (before the first refresh)'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/alerts',
    summary: "The subscription's catchment alerts, oldest first",
    description:
      'After each successful refresh, every catchment postcode is compared with its state at the previous refresh: newly_eligible (one per postcode, the lowest new AGRN), declaration_added, declaration_ended, no_longer_eligible. Kept 90 days. Pass the last id seen as `since`.',
    security: keyOrSession,
    request: { query: AlertsQuery },
    responses: {
      200: json(successEnvelope(AlertsData), 'Alerts with an id greater than since'),
      400: error('invalid_request: since is not an alert id'),
      ...keyRefusals,
    },
  });

  // Webhooks (issue #17): one per subscription; each batch of new alerts is POSTed to it, signed.
  // What the server sends to the receiver (OpenAPI 3.1 `webhooks`).
  registry.registerWebhook({
    method: 'post',
    path: 'alerts',
    summary: "A batch of new catchment alerts, POSTed to the subscription's webhook URL",
    description:
      'Verify `X-Signature` before trusting the body: HMAC-SHA256 of the raw body bytes with the secret PUT returned, hex, after `sha256=`, compared in constant time. `X-Delivery-Id` is the same on every attempt of one delivery.',
    // The receiver authenticates the request by its signature, which no OpenAPI security scheme can express.
    security: noAuth,
    request: {
      headers: z.object({
        'X-Signature': z.string().meta({ description: 'sha256=<hex HMAC-SHA256 of the raw body>' }),
        'X-Delivery-Id': z.string().meta({ description: 'The delivery (the same on retries)' }),
      }),
      body: { required: true, content: { 'application/json': { schema: WebhookPayload } } },
    },
    responses: { 200: { description: 'Any 2xx: delivered. Anything else, or no answer within 10 s: retried.' } },
  });
  const WEBHOOK_DELIVERY =
    'Each new batch of catchment alerts is POSTed to the URL as a WebhookPayload (`Content-Type: application/json`, `X-Delivery-Id`, and `X-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed by the secret>`); a 2xx answer counts as delivered, redirects are not followed, each attempt has 10 s. Failed deliveries are retried after 1 minute, doubling, at most hourly, until a day after the first attempt. Only http(s) URLs, and no loopback, private, link-local or other non-public address (the IANA special-purpose ranges; IPv4-mapped, NAT64 and 6to4 IPv6 by the IPv4 address inside; checked again on the addresses a host name resolves to) unless the server sets WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true.';
  registry.registerPath({
    method: 'put',
    path: '/api/v1/webhook',
    summary: 'Set (or replace) the webhook; returns its signing secret once',
    description: `Replaces any webhook of the subscription, with a new secret. ${WEBHOOK_DELIVERY}`,
    security: [{ [session.name]: [] }],
    request: { body: { required: true, content: { 'application/json': { schema: WebhookRequest } } } },
    responses: {
      200: json(successEnvelope(NewWebhookData), 'The webhook, with its signing secret (shown this once)'),
      400: error('invalid_webhook_url: not an http(s) URL to a public address; invalid_request / invalid_json'),
      401: error('Sign in required'),
      403: error('API subscription is inactive, or request origin not allowed'),
      413: error('Request body over 10 kB'),
      415: error('Content-Type is not application/json'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/webhook',
    summary: "The webhook's URL and its last delivery (never the secret)",
    description: `url is null when none is set. ${WEBHOOK_DELIVERY}`,
    security: [{ [session.name]: [] }, { [apiKey.name]: [] }],
    responses: {
      200: json(successEnvelope(WebhookData), 'The webhook and the status of its newest delivery'),
      401: error('Sign in required, or (with x-api-key) Invalid API key'),
      403: error('API subscription is inactive (x-api-key)'),
      429: error('Rate limit exceeded (x-api-key, counted like the check); wait Retry-After seconds'),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/v1/webhook',
    summary: 'Remove the webhook (deliveries still queued are dropped)',
    security: [{ [session.name]: [] }],
    responses: {
      200: json(successEnvelope(WebhookData), 'Removed (every field null)'),
      401: error('Sign in required'),
      403: error('Request origin not allowed'),
      404: error('No webhook is set'),
    },
  });

  // The generator builds components from paths only; the webhook's payload (and its Alert) are listed here so that
  // the `webhooks` section's $ref resolves.
  const definitions = [...registry.definitions, { type: 'schema' as const, schema: WebhookPayload }];
  return new OpenApiGeneratorV31(definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Disaster Telehealth Eligibility API',
      version: '1.0.0',
      description:
        'Whether an Australian postcode is covered by an active disaster declaration that exempts a GP telehealth consult from the established clinical relationship rule. Information only; not clinical or billing advice.',
    },
    servers: [{ url: '/' }],
  });
}
