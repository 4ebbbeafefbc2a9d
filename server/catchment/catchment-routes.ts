import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import {
  CATCHMENT_CSV_COLUMNS,
  CATCHMENT_ENDPOINTS,
  CatchmentQuery,
  CatchmentRequest,
  CatchmentResponse,
  type CatchmentData,
  MAX_CATCHMENT_ENTRIES,
  MAX_CATCHMENT_POSTCODES,
} from '../../shared/api/catchment';
import type { DataMetadata } from '../../shared/api/check';
import { isAustralianPostcode } from '../../shared/api/postcode';
import { sydneyToday } from '../../shared/domain/dates';
import { isSubscriptionActive } from '../accounts/account-service';
import type { AuditRecorder } from '../audit/audit-log';
import { signedInActor } from '../activity/activity-actor';
import { sessionOrApiKey, type SessionOrApiKeyDeps } from '../auth/session-or-api-key';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { dataMetadata, lastRefreshOrUnavailable } from '../check/data-metadata';
import { ContractError } from '../contract-error';
import { jsonBodyUpTo } from '../http/json-body';
import { API_KEY_REFUSALS, errorResponse, SESSION_AUTH, SESSION_OR_API_KEY_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { withValidBody, withValidQuery, type ErrorFor } from '../http/validate-request';
import type { PostcodeIndex } from '../postcodes/postcode-index';
import { MANAGING_ROLES } from '../../shared/api/team';
import { callerSubscription, requireRole, requireSession } from '../sessions/require-session';
import { catchmentCsv } from './catchment-csv';
import { EMPTY_SUMMARY, type CatchmentService } from './catchment-service';

/**
 * JSON answers by the catchment view they encode: CatchmentService.view hands out the same object while its cached
 * view holds, so a 300-postcode answer (about 100 kB) is encoded once per view and metadata instead of per request,
 * as the check's answers are. Weak: a view the service dropped takes its encoding with it.
 */
const encodedAnswers = new WeakMap<CatchmentData, { metadata: string; body: Buffer }>();

function encodedAnswer(data: CatchmentData, metadata: DataMetadata): Buffer {
  const metadataJson = JSON.stringify(metadata);
  const known = encodedAnswers.get(data);
  if (known?.metadata === metadataJson) return known.body;
  const response: CatchmentResponse = { success: true, data, metadata };
  const body = Buffer.from(JSON.stringify(response));
  encodedAnswers.set(data, { metadata: metadataJson, body });
  return body;
}

/** The gate's `rateLimit` is the check's: a GET with an API key counts against the key's limit like a check. */
export interface CatchmentRoutesDeps extends SessionOrApiKeyDeps {
  catchments: CatchmentService;
  /** Where each save is recorded, with who made it. */
  audit: AuditRecorder;
  declarations: DeclarationRepository;
  postcodes: PostcodeIndex;
}

/** A catchment body: MAX_CATCHMENT_ENTRIES postcodes (about 140 kB written compactly) fit with room for spacing. */
const MAX_CATCHMENT_BODY_BYTES = 512 * 1024;

/** The offending value as shown in error.details: strings as they are, anything else as JSON text. */
const shown = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));

/**
 * A PUT's list as the contract judges it: its distinct postcodes, or the refusal. Entries are counted before anything
 * is looked at, whatever they are (the documented maxItems); then distinct ones; then every invalid or unknown postcode
 * is listed in one error.
 */
function distinctPostcodes(list: readonly unknown[], postcodes: PostcodeIndex): string[] | ContractError {
  if (list.length > MAX_CATCHMENT_ENTRIES) return new ContractError('catchment_too_large');
  const distinct = new Map<string, unknown>();
  for (const value of list) distinct.set(typeof value === 'string' ? value : `\0${shown(value)}`, value);
  if (distinct.size > MAX_CATCHMENT_POSTCODES) return new ContractError('catchment_too_large');
  const offenders: string[] = [];
  for (const value of distinct.values()) {
    if (!isAustralianPostcode(value) || postcodes.get(value) === undefined) offenders.push(shown(value));
  }
  if (offenders.length > 0) return new ContractError('invalid_postcode', { details: offenders });
  return [...distinct.values()] as string[];
}

/**
 * The schema refuses a list that is too long or holds anything but strings: which refusal that is, with every
 * offending entry, is the list's own judgement of the raw list. A body without a list is not a catchment at all.
 */
const catchmentRefusal =
  (postcodes: PostcodeIndex): ErrorFor =>
  (path, body) => {
    const list = path[0] === 'postcodes' ? (body as { postcodes?: unknown }).postcodes : undefined;
    if (!Array.isArray(list)) return 'invalid_request';
    const judged = distinctPostcodes(list, postcodes);
    return judged instanceof ContractError ? judged : 'invalid_request';
  };

const CATCHMENT_ROWS =
  "One row per postcode, ascending: the colour of the check (green, amber, red) or `unknown` when the current data cannot tell its LGA, eligibility, the principal LGA, all LGAs, the AGRNs of the active declarations covering it, and its coverage (the check's `summary.coverage`: all, some or none of its LGAs covered, with the covered ones named; `some` is eligible only for patients living in a covered LGA), computed from the current data. The summary counts the rows by colour, and the partly covered ones (coverage `some`) again apart.";

const DATA_UNAVAILABLE = { 503: errorResponse('Disaster data is not available yet (before the first refresh)') };

/**
 * PUT/GET /api/v1/catchment (behind the cookie session). PUT takes the session (Origin-checked by the session
 * middleware in front); GET the session or an `x-api-key` header. Either way the catchment is the caller's
 * subscription's.
 */
export function catchmentRoutes(deps: CatchmentRoutesDeps): Route[] {
  const answer = answerCatchment(deps);
  return [readRoute(deps, answer), saveRoute(deps, answer)];
}

type AnswerCatchment = (format: CatchmentQuery['format'], res: Response) => Promise<void>;

/** The caller's subscription's catchment now, as JSON (encoded once per view) or CSV. */
function answerCatchment({ catchments, declarations, clock }: CatchmentRoutesDeps): AnswerCatchment {
  return async (format, res) => {
    const lastUpdated = lastRefreshOrUnavailable(declarations);
    const now = clock();
    const day = sydneyToday(now);
    const subscriptionId = callerSubscription(res)?.id ?? null;
    const data =
      subscriptionId === null
        ? { summary: { ...EMPTY_SUMMARY }, postcodes: [], updated_at: null }
        : await catchments.view(subscriptionId, day);
    res.setHeader('Cache-Control', 'no-store');
    if (format === 'csv') {
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', 'attachment; filename="catchment.csv"');
      res.send(catchmentCsv(data.postcodes));
      return;
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(encodedAnswer(data, dataMetadata(lastUpdated, now, day)));
  };
}

function readRoute(deps: CatchmentRoutesDeps, answer: AnswerCatchment): Route {
  return defineRoute({
    endpoint: CATCHMENT_ENDPOINTS.read,
    summary: "The catchment's postcodes and their eligibility now (JSON, or CSV with ?format=csv)",
    description: `${CATCHMENT_ROWS} \`?format=csv\` answers \`text/csv\` (attachment catchment.csv) with the columns ${CATCHMENT_CSV_COLUMNS.join(', ')}; lists joined with "; ".`,
    security: SESSION_OR_API_KEY_AUTH,
    authenticate: sessionOrApiKey(deps),
    ok: {
      description: 'The catchment',
      content: { 'text/csv': { schema: z.string().meta({ description: 'Header row, then one row per postcode' }) } },
    },
    responses: { 400: errorResponse('invalid_request: unknown format'), ...API_KEY_REFUSALS, ...DATA_UNAVAILABLE },
    handle: ({ query }, _req, res) => answer(query.format, res),
  });
}

/**
 * The PUT reads its body itself: after the JSON is read, an inactive subscription is refused before the list is
 * judged; once saved it answers as GET does, query included.
 */
function saveRoute(deps: CatchmentRoutesDeps, answer: AnswerCatchment): Route {
  const { postcodes, declarations, catchments, clock } = deps;
  const activeSubscription: RequestHandler = (_req, res, next) => {
    const subscription = callerSubscription(res);
    if (!subscription || !isSubscriptionActive(subscription, clock())) throw new ContractError('subscription_inactive');
    next();
  };
  const save = withValidBody(CatchmentRequest, catchmentRefusal(postcodes), async (body, req, res, next) => {
    const judged = distinctPostcodes(body.postcodes, postcodes);
    if (judged instanceof ContractError) throw judged;
    // Answered as GET, which needs the data: before the first refresh nothing is saved either.
    lastRefreshOrUnavailable(declarations);
    await catchments.replace(callerSubscription(res)!.id, judged);
    await deps.audit.record({ event: 'catchment_saved', ...signedInActor(req, res), postcode_count: judged.length });
    next();
  });
  const answerAsRead = withValidQuery(
    CatchmentQuery,
    () => 'invalid_request',
    ({ format }, _req, res) => answer(format, res),
  );
  return defineRoute({
    endpoint: CATCHMENT_ENDPOINTS.save,
    summary: "Replace the practice's catchment (up to 5,000 postcodes)",
    description: `Distinct postcodes (repeats count once). Every invalid or unknown postcode is listed in one 400 invalid_postcode (\`error.details\`). Alerts for a postcode start after the next refresh, which is its baseline. Answers as GET. ${CATCHMENT_ROWS}`,
    security: SESSION_AUTH,
    authenticate: requireSession(deps.accounts),
    gates: [requireRole(...MANAGING_ROLES)],
    bodyLimitBytes: MAX_CATCHMENT_BODY_BYTES,
    ok: 'The catchment as saved',
    responses: {
      400: errorResponse(
        'invalid_postcode (error.details lists the offending values), catchment_too_large (over 5000 distinct, or over 20000 entries), invalid_request, invalid_json',
      ),
      403: errorResponse('API subscription is inactive, or request origin not allowed'),
      413: errorResponse('Request body over 512 kB'),
      415: errorResponse('Content-Type is not application/json'),
      ...DATA_UNAVAILABLE,
    },
    handlers: [jsonBodyUpTo(MAX_CATCHMENT_BODY_BYTES), activeSubscription, save, answerAsRead],
  });
}
