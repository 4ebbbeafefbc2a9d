import { CHECK_ENDPOINTS, type CheckRequest } from '../../../../shared/api/check';
import { ErrorEnvelope } from '../../../../shared/api/envelope';
import { endpointUrl, methodOf } from '../../../../ui/api/endpoint-call';
import { GATEWAY_STATUSES, sendRequest, type Fetch } from '../../../../ui/api/server-request';
import { ClientCheckResponse } from '../../../../ui/result/check-answer';
import type { CheckSuccess } from '../../../../ui/result/outcome';
import { statedRetrySeconds } from '../../../../ui/result/retry-after';
import { HERE } from '../../console-calls';

/**
 * A check by hand that gave no answer: the API's error code (or `unreachable`, `unexpected_response`), with what the
 * page needs to word it: the request, and for 429 and 503 how many seconds to wait when the server said.
 */
export interface ByHandFailure {
  ok: false;
  request: CheckRequest;
  code: string;
  /** The server's own message, for codes the page has no words of its own for. */
  message: string;
  status?: number;
  retryAfter?: number;
}

export type ByHandAnswer = CheckSuccess | ByHandFailure;

/**
 * POST /api/v1/session/check-postcode: the check with the console's cookie session, the same body and answer as the
 * API key's. A fetch of its own rather than the account client's, because a 429's Retry-After is part of the answer.
 */
export async function checkByHand(
  fetchFn: Fetch,
  request: CheckRequest,
  now: () => number = Date.now,
): Promise<ByHandAnswer> {
  const { checkByHand: endpoint } = CHECK_ENDPOINTS;
  const answer = await sendRequest(fetchFn, endpointUrl(HERE, endpoint), {
    method: methodOf(endpoint),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
    credentials: 'same-origin',
  });
  const failure = (code: string, message: string, status?: number): ByHandFailure => ({
    ok: false,
    request,
    code,
    message,
    ...(status === undefined ? {} : { status }),
  });
  if (!answer) return failure('unreachable', 'The server could not be reached.');
  const { response, body } = answer;
  if (response.ok) {
    const parsed = ClientCheckResponse.safeParse(body);
    if (parsed.success) {
      return { ok: true, postcode: request.postcode, data: parsed.data.data, metadata: parsed.data.metadata };
    }
    return failure('unexpected_response', `The server gave an unexpected answer (HTTP ${response.status}).`, 200);
  }
  const envelope = ErrorEnvelope.safeParse(body);
  const refused = envelope.success
    ? failure(envelope.data.error.code, envelope.data.error.message, response.status)
    : GATEWAY_STATUSES.has(response.status)
      ? failure('unreachable', 'The server could not be reached.', response.status)
      : failure('server_error', `The server answered HTTP ${response.status}.`, response.status);
  if (response.status === 429 || response.status === 503) {
    // Only a wait the server stated: the page says no time rather than one it made up.
    const wait = statedRetrySeconds(response.headers, now());
    if (wait !== undefined) refused.retryAfter = wait;
  }
  return refused;
}
