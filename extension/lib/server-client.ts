import { z } from 'zod';
import { SessionData } from '../../shared/api/auth';
import { CheckResponse } from '../../shared/api/check';
import { ErrorEnvelope, successEnvelope } from '../../shared/api/envelope';
import type { ApiErrorCode } from '../../shared/api/errors';
import { KeyStatusData, NewKeyData, RevokedKeyData } from '../../shared/api/keys';
import type { AccountResult } from './messaging';
import type { CheckOutcome, Problem } from './outcome';

/** Runs in the background service worker only. */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export const REQUEST_TIMEOUT_MS = 10_000;
/** When a 429 or 503 comes without a usable Retry-After. */
const DEFAULT_RETRY_SECONDS = 60;

/** Statuses a proxy answers with, without the API's envelope, when the server behind it is down. */
const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** API error codes the badge has its own words for; every other code is a server error. */
const PROBLEM_BY_CODE: Partial<Record<ApiErrorCode, Problem>> = {
  missing_api_key: 'no_key',
  invalid_api_key: 'invalid_key',
  subscription_inactive: 'subscription_inactive',
  rate_limited: 'rate_limited',
  invalid_postcode: 'invalid_postcode',
  postcode_not_found: 'postcode_not_found',
  data_unavailable: 'data_unavailable',
};

/** Retry-After as seconds (delta form; an HTTP date is accepted too). */
export function retryAfterSeconds(headers: Headers, now: number): number {
  const raw = headers.get('retry-after') ?? headers.get('x-ratelimit-reset');
  if (raw) {
    const seconds = Number(raw);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
    const date = Date.parse(raw);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  }
  return DEFAULT_RETRY_SECONDS;
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError'));
}

/**
 * One request with the shared timeout and no HTTP cache, its body read as JSON when it is JSON. Null when the server
 * could not be reached (network error or timeout); any other exception is a bug and is thrown.
 */
async function send(fetchFn: Fetch, url: string, init: RequestInit): Promise<{ response: Response; body: unknown } | null> {
  let response: Response;
  try {
    response = await fetchFn(url, { ...init, cache: 'no-store', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    if (isNetworkError(error)) return null;
    throw error;
  }
  return { response, body: await readJson(response) };
}

/** POST /api/v1/check-postcode, every answer and every failure turned into a CheckOutcome. */
export async function requestCheck(
  fetchFn: Fetch,
  serverUrl: string,
  apiKey: string,
  postcode: string,
  now: () => number = Date.now,
): Promise<CheckOutcome> {
  const answer = await send(fetchFn, `${serverUrl}/api/v1/check-postcode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    // Only the postcode leaves the page.
    body: JSON.stringify({ postcode }),
    credentials: 'omit',
  });
  if (!answer) return { ok: false, postcode, problem: 'unreachable' };
  const { response, body } = answer;
  if (response.ok) {
    const parsed = CheckResponse.safeParse(body);
    if (parsed.success) return { ok: true, postcode, data: parsed.data.data, metadata: parsed.data.metadata };
    return { ok: false, postcode, problem: 'server_error', status: response.status };
  }
  const envelope = ErrorEnvelope.safeParse(body);
  const code = envelope.success ? envelope.data.error.code : null;
  let problem: Problem | undefined = code ? PROBLEM_BY_CODE[code] : undefined;
  // A proxy in front of a stopped server answers 502/503/504 without the API's envelope.
  if (!problem && !envelope.success && GATEWAY_STATUSES.has(response.status)) problem = 'unreachable';
  problem ??= 'server_error';
  const failure: CheckOutcome = { ok: false, postcode, problem, status: response.status };
  if (problem === 'rate_limited' || problem === 'data_unavailable') {
    const at = now();
    failure.retryAt = at + retryAfterSeconds(response.headers, at) * 1000;
  }
  return failure;
}

// ---------------------------------------------------------------------------------------------------------------
// Account and key endpoints (cookie session, SPEC §9–10)

const UNREACHABLE = { ok: false, code: 'unreachable', message: 'Server unreachable: check the Server URL and the network.' } as const;

async function accountCall<T extends z.ZodType>(
  fetchFn: Fetch,
  serverUrl: string,
  path: string,
  method: 'GET' | 'POST',
  schema: T,
  body?: unknown,
): Promise<AccountResult<z.infer<T>>> {
  const answer = await send(fetchFn, `${serverUrl}/api/v1${path}`, {
    method,
    headers: method === 'POST' ? { 'content-type': 'application/json' } : {},
    body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    // The session cookie is the server's; the browser keeps it and sends it back.
    credentials: 'include',
  });
  if (!answer) return { ...UNREACHABLE };
  const { response, body: json } = answer;
  if (response.ok) {
    const parsed = successEnvelope(schema).safeParse(json);
    if (parsed.success) return { ok: true, data: (parsed.data as { data: z.infer<T> }).data };
    return { ok: false, code: 'unexpected_response', message: `The server gave an unexpected answer (HTTP ${response.status}).`, status: response.status };
  }
  const envelope = ErrorEnvelope.safeParse(json);
  if (envelope.success) {
    return { ok: false, code: envelope.data.error.code, message: envelope.data.error.message, status: response.status };
  }
  if (response.status === 404) {
    return { ok: false, code: 'not_found', message: 'This server has no account endpoints (HTTP 404). Check the Server URL.', status: 404 };
  }
  if (GATEWAY_STATUSES.has(response.status)) return { ...UNREACHABLE, status: response.status };
  return { ok: false, code: 'server_error', message: `The server answered HTTP ${response.status}.`, status: response.status };
}

export const accountApi = {
  /** The login answer's body is not relied on: the session is read back with `session` afterwards. */
  login: (f: Fetch, url: string, credentials: { email: string; password: string }) =>
    accountCall(f, url, '/auth/login', 'POST', z.unknown(), credentials),
  logout: (f: Fetch, url: string) => accountCall(f, url, '/auth/logout', 'POST', z.unknown()),
  session: (f: Fetch, url: string) => accountCall(f, url, '/auth/session', 'GET', SessionData),
  keyStatus: (f: Fetch, url: string) => accountCall(f, url, '/keys/status', 'GET', KeyStatusData),
  generateKey: (f: Fetch, url: string) => accountCall(f, url, '/keys/generate', 'POST', NewKeyData),
  regenerateKey: (f: Fetch, url: string) => accountCall(f, url, '/keys/regenerate', 'POST', NewKeyData),
  revokeKey: (f: Fetch, url: string) => accountCall(f, url, '/keys/revoke', 'POST', RevokedKeyData),
};
