import { CHECK_ENDPOINTS } from '../../shared/api/check';
import { ErrorEnvelope } from '../../shared/api/envelope';
import type { ApiErrorCode } from '../../shared/api/errors';
import { ClientCheckResponse } from '../../ui/result/check-answer';
import type { CheckOutcome, Problem } from '../../ui/result/outcome';
import { endpointUrl, methodOf } from '../../ui/api/endpoint-call';
import { GATEWAY_STATUSES, isRedirect, sendRequest, type Fetch } from '../../ui/api/server-request';
import { retryAfterSeconds } from '../../ui/result/retry-after';

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

/** POST /api/v1/check-postcode, every answer and every failure turned into a CheckOutcome. */
export async function requestCheck(
  fetchFn: Fetch,
  serverUrl: string,
  apiKey: string,
  postcode: string,
  now: () => number = Date.now,
): Promise<CheckOutcome> {
  const { check } = CHECK_ENDPOINTS;
  const answer = await sendRequest(fetchFn, endpointUrl(serverUrl, check), {
    method: methodOf(check),
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    // Only the postcode leaves the page.
    body: JSON.stringify({ postcode }),
    credentials: 'omit',
  });
  if (!answer) return { ok: false, postcode, problem: 'unreachable' };
  const { response, body } = answer;
  if (isRedirect(response)) return { ok: false, postcode, problem: 'redirected' };
  if (response.ok) {
    // Leniently: a server without this one's later fields is still a server (see ui/result/check-answer.ts).
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
