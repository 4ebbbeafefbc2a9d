import { ErrorEnvelope } from '../../shared/api/envelope';
import type { ApiErrorCode } from '../../shared/api/errors';
import { ClientCheckResponse } from '../common/check-answer';
import type { CheckOutcome, Problem } from '../common/outcome';
import { GATEWAY_STATUSES, sendRequest, type Fetch } from '../../ui/api/server-request';

/** When a 429 or 503 comes without a usable Retry-After. */
const DEFAULT_RETRY_SECONDS = 60;

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

/** POST /api/v1/check-postcode, every answer and every failure turned into a CheckOutcome. */
export async function requestCheck(
  fetchFn: Fetch,
  serverUrl: string,
  apiKey: string,
  postcode: string,
  now: () => number = Date.now,
): Promise<CheckOutcome> {
  const answer = await sendRequest(fetchFn, `${serverUrl}/api/v1/check-postcode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    // Only the postcode leaves the page.
    body: JSON.stringify({ postcode }),
    credentials: 'omit',
  });
  if (!answer) return { ok: false, postcode, problem: 'unreachable' };
  const { response, body } = answer;
  if (response.ok) {
    // Leniently: a server without this one's later fields is still a server (see check-answer.ts).
    const parsed = ClientCheckResponse.safeParse(body);
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
