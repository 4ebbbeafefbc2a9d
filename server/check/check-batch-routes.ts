import { Router, type RequestHandler, type Response } from 'express';
import { BATCH_MAX_ITEMS, CHECK_BATCH_ENDPOINTS, CheckBatchEnvelope } from '../../shared/api/check-batch';
import { API_ERRORS, type ApiErrorCode } from '../../shared/api/errors';
import { sydneyToday } from '../../shared/domain/dates';
import type { AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import { jsonBodyUpTo } from '../http/json-body';
import { errorResponse, SESSION_OR_API_KEY_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { withValidBody } from '../http/validate-request';
import { apiKeyGate, countUsage, type ApiKeyGateDeps, type CountedCaller } from '../keys/require-api-key';
import { requireSession } from '../sessions/require-session';
import { secondsUntilSydneyMidnight, type BatchAllowance } from './batch-allowance';
import { byHandCaller } from './check-by-hand-routes';
import { questionOf, type CheckAnswers, type DataNow } from './check-answers';
import { dataMetadata } from './data-metadata';
import { rateLimitHeaders } from './check-routes';

/**
 * 500 items as a practice's software sends them — a postcode, a suburb of up to 100 characters, a date, pretty-printed
 * — take under 100 kB; twice that and more leaves room for escapes without inviting megabytes of junk.
 */
export const MAX_BATCH_BODY_BYTES = 256 * 1024;

/** The key's rate limit and the check's answers; the gate's `rateLimit` is the check's, so a batch is one check. */
export interface CheckBatchRoutesDeps extends ApiKeyGateDeps {
  accounts: AccountService;
  answers: CheckAnswers;
  allowance: BatchAllowance;
  /** In front of the key's gate: the route table's fresh data, where the rate limiter does not see the data epoch. */
  beforeKey: readonly RequestHandler[];
  /** In front of the session's: the route table's fresh data and cookie session (with its Origin check). */
  signedIn: readonly RequestHandler[];
}

const count = new Intl.NumberFormat('en-AU');

/** Whole answers as bytes: a batch is assembled from these and from the cached answers' own `data` bytes. */
const RESULTS_START = Buffer.from('{"success":true,"data":{"results":[');
const ANSWER_START = Buffer.from('{"success":true,"data":');
const COMMA = Buffer.from(',');
const refusals = new Map<ApiErrorCode, Buffer>();

function refusalOf(code: ApiErrorCode): Buffer {
  let refusal = refusals.get(code);
  if (!refusal) {
    refusal = Buffer.from(JSON.stringify({ success: false, error: { code, message: API_ERRORS[code].message } }));
    refusals.set(code, refusal);
  }
  return refusal;
}

/**
 * Each item judged on its own exactly as the check judges its body, each answer spliced in from the check's cache:
 * `results[i]` answers `items[i]`, and one bad item is that item's error, never the batch's.
 */
function encodeResults(items: readonly unknown[], answers: CheckAnswers, now: Date, data: DataNow): Buffer[] {
  const today = sydneyToday(now);
  const checkedDates = new Map<string, Buffer>();
  const parts: Buffer[] = [RESULTS_START];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    const read = questionOf(item);
    const answer = 'refused' in read ? read.refused : answers.answer(read.question, now, data);
    if (typeof answer === 'string') {
      parts.push(refusalOf(answer));
      return;
    }
    const day = ('question' in read && read.question.date) || today;
    let checkedDate = checkedDates.get(day);
    if (!checkedDate) {
      checkedDate = Buffer.from(`,"checked_date":"${day}"}`);
      checkedDates.set(day, checkedDate);
    }
    parts.push(ANSWER_START, answer.data, checkedDate);
  });
  return parts;
}

/**
 * With an `x-api-key` header the key's gate, exactly as the check runs it (identified, rate limited, then 401/403);
 * otherwise the console's cookie session (any member, Origin-checked; 403 while the subscription is inactive), counted
 * and limited as the organisation's checks by hand. Either way `res.locals.caller` is who the batch is counted for.
 */
function keyOrSession(deps: CheckBatchRoutesDeps): RequestHandler {
  const { clock, usage } = deps;
  // A router runs its handlers in a row, as if mounted one after the other, and calls next() after the last.
  const byKey = Router().use(...deps.beforeKey, ...apiKeyGate(deps));
  const bySession = Router().use(
    ...deps.signedIn,
    requireSession(deps.accounts),
    byHandCaller(clock),
    ...(usage ? [countUsage(usage, clock)] : []),
    ...deps.rateLimit,
  );
  return (req, res, next) => (req.headers['x-api-key'] === undefined ? bySession : byKey)(req, res, next);
}

function allowanceUsed(perDay: number, left: number, rows: number, now: Date): ContractError {
  return new ContractError('batch_allowance_used', {
    retryAfterSeconds: secondsUntilSydneyMidnight(now),
    message: `Today's allowance of ${count.format(perDay)} list rows is used up (${count.format(left)} left, this batch has ${count.format(rows)}); it renews at midnight Sydney time`,
  });
}

/** POST /api/v1/check-batch: up to 500 checks in one request, for a list (API key, or the console's session). */
export function checkBatchRoutes(deps: CheckBatchRoutesDeps): Route[] {
  const { answers, allowance, clock, usage } = deps;
  const answerBatch = withValidBody(
    CheckBatchEnvelope,
    () => 'invalid_batch',
    async ({ items }, _req, res: Response) => {
      const now = clock();
      // Before the first refresh nothing can be answered, so nothing of the allowance is spent either.
      answers.dataAt(now);
      const caller = res.locals.caller as CountedCaller;
      const subscriptionId = caller.subscription.id;
      const taken = await allowance.take(subscriptionId, sydneyToday(now), items.length);
      if (!taken.ok) throw allowanceUsed(allowance.perDay, taken.left, items.length, now);
      // Read again after the wait: the data may have been refreshed meanwhile, and answers follow the newest.
      const data = answers.dataAt(now);
      const parts = encodeResults(items, answers, now, data);
      const metadata = {
        ...dataMetadata(data.lastUpdated, now, sydneyToday(now)),
        rows_per_day: allowance.perDay,
        rows_left_today: taken.left,
      };
      parts.push(Buffer.from(`]},"metadata":${JSON.stringify(metadata)}}`));
      const body = Buffer.concat(parts);
      usage?.countRows(subscriptionId, caller.id, items.length, now);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', body.length);
      res.end(body);
    },
  );

  return [
    defineRoute({
      endpoint: CHECK_BATCH_ENDPOINTS.checkBatch,
      summary: 'Check a list of postcodes at once (up to 500): appointment lists and claim audits',
      description: [
        `For desktop practice software (Best Practice, MedicalDirector) and scripts that hold a list rather than one patient: up to ${BATCH_MAX_ITEMS} items, each the body of POST /api/v1/check-postcode, answered in one request. \`results[i]\` answers \`items[i]\`: the check's \`data\` and the day it was judged on (\`checked_date\`), or that item's error with the code and message the single check gives (invalid_postcode, invalid_date, invalid_suburb, postcode_not_found) — one bad item never fails the batch.`,
        'For a claim audit (a Medicare compliance review of telehealth claims), give each item the `date` of the service: it is judged on the declarations that held that day. A 5,000-row list is sent as 10 batches.',
        'Limits: a batch counts once against the 100-a-minute check limit (the same budget as the caller’s checks), and its items against a daily allowance of rows per organisation (`metadata.rows_per_day`, `metadata.rows_left_today`), renewed at midnight Sydney time; every item counts, a bad one too. Usage shows the rows apart (`batch_rows`).',
        'Authentication: an `x-api-key` header (checked in the check’s order: key header, key, subscription, rate limit, then the body), or the console’s cookie session (any member; counted as "by hand (console)").',
      ].join('\n\n'),
      security: SESSION_OR_API_KEY_AUTH,
      gates: [keyOrSession(deps)],
      bodyLimitBytes: MAX_BATCH_BODY_BYTES,
      ok: { description: 'One result per item, in order', headers: rateLimitHeaders },
      responses: {
        400: errorResponse(
          'invalid_batch: `items` missing, not a list, or not 1 to 500 of them; invalid_json: the body is not JSON',
        ),
        401: errorResponse('Missing x-api-key header / Invalid API key; without a key, sign in required'),
        403: errorResponse('API subscription is inactive, or (session) request origin not allowed'),
        413: errorResponse(`payload_too_large: the body is over ${MAX_BATCH_BODY_BYTES / 1024} kB`),
        415: errorResponse('Content-Type is not application/json'),
        429: errorResponse(
          "rate_limited: over the check's rate limit, wait Retry-After seconds; batch_allowance_used: today's allowance of rows is used up (the message says how many are left), Retry-After is the seconds until midnight Sydney time",
        ),
        503: errorResponse(
          'Disaster data is not available yet (before the first refresh), or rate limiting is unavailable; wait Retry-After seconds',
        ),
      },
      handlers: [jsonBodyUpTo(MAX_BATCH_BODY_BYTES), answerBatch],
    }),
  ];
}
