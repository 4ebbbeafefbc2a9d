import {
  CHECK_BATCH_ENDPOINTS,
  CheckBatchResponse,
  type BatchItemResult,
  type BatchMetadata,
} from '../../../../shared/api/check-batch';
import { ErrorEnvelope } from '../../../../shared/api/envelope';
import { endpointUrl, methodOf } from '../../../../ui/api/endpoint-call';
import { sendRequest, type Fetch } from '../../../../ui/api/server-request';
import { statedRetrySeconds } from '../../../../ui/result/retry-after';
import { HERE } from '../../console-calls';
import type { RowQuestion } from './list-model';

/**
 * One batch's answer: its results (index-aligned with the questions sent); the whole batch refused, with the API's
 * code and the wait the server stated; or no usable answer (not reached, a gateway's page, an answer not understood).
 */
export type BatchAnswer =
  | { kind: 'answered'; results: BatchItemResult[]; metadata: BatchMetadata }
  | { kind: 'refused'; code: string; retryAfter?: number }
  | { kind: 'unreachable' };

/**
 * POST /api/v1/check-batch with the console's session: only the questions' postcode, suburb and date are in the body.
 * A fetch of its own rather than the account client's, because a 429's Retry-After is part of the answer.
 */
export async function checkBatch(
  fetchFn: Fetch,
  questions: readonly RowQuestion[],
  now: () => number = Date.now,
): Promise<BatchAnswer> {
  const { checkBatch: endpoint } = CHECK_BATCH_ENDPOINTS;
  // Built field by field: whatever else a question object might carry, nothing but these three leaves the page.
  const items = questions.map(({ postcode, suburb, date }) => ({
    postcode,
    ...(suburb === undefined ? {} : { suburb }),
    ...(date === undefined ? {} : { date }),
  }));
  const answer = await sendRequest(fetchFn, endpointUrl(HERE, endpoint), {
    method: methodOf(endpoint),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ items }),
    credentials: 'same-origin',
  });
  if (!answer) return { kind: 'unreachable' };
  const { response, body } = answer;
  if (response.ok) {
    const parsed = CheckBatchResponse.safeParse(body);
    if (!parsed.success || parsed.data.data.results.length !== items.length) return { kind: 'unreachable' };
    return { kind: 'answered', results: parsed.data.data.results, metadata: parsed.data.metadata };
  }
  const envelope = ErrorEnvelope.safeParse(body);
  if (!envelope.success || response.status >= 500) return { kind: 'unreachable' };
  const retryAfter = statedRetrySeconds(response.headers, now());
  return retryAfter === undefined
    ? { kind: 'refused', code: envelope.data.error.code }
    : { kind: 'refused', code: envelope.data.error.code, retryAfter };
}
