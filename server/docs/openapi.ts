import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { LoginRequest, SessionData } from '../../shared/api/auth';
import { CheckRequest, CheckResponse } from '../../shared/api/check';
import { ErrorEnvelope, successEnvelope } from '../../shared/api/envelope';
import { Health } from '../../shared/api/health';
import { KeyStatusData, NewKeyData, RevokedKeyData } from '../../shared/api/keys';

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
    responses: { 200: json(Health, 'The service is up') },
  });

  registry.registerPath({
    method: 'post',
    path: '/api/v1/auth/login',
    summary: 'Sign in; sets the session cookie',
    description:
      'Sets `dte.sid` (httpOnly, SameSite=Lax, Path=/api/v1, Secure over HTTPS) with a new session id. Sessions end after 30 idle minutes or 12 hours (SESSION_IDLE_MINUTES, SESSION_ABSOLUTE_HOURS). Failed attempts are limited per email (5) and per client address (20) in 15 minutes; while limited, even the right password gets 429 with Retry-After.',
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
    responses: { 200: json(successEnvelope(SessionData), 'Signed out'), 403: error('Request origin is not allowed') },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/auth/session',
    summary: 'The current session',
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

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
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
