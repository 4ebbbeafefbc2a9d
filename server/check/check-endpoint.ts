import type { RequestHandler } from 'express';
import { CheckRequest, type DataMetadata } from '../../shared/api/check';
import type { ApiErrorCode } from '../../shared/api/errors';
import { sydneyToday } from '../../shared/domain/dates';
import { evaluateEligibility } from '../../shared/eligibility/evaluate';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { isStale } from '../declarations/freshness';
import { AppError } from '../http/app-error';
import { jsonBody } from '../http/json-body';
import { validateBody } from '../http/validate-request';
import type { KeyService } from '../keys/key-service';
import { identifyApiKey, requireApiKey } from '../keys/require-api-key';
import type { PostcodeIndex } from '../postcodes/postcode-index';
import { AnswerCache } from './answer-cache';

export interface CheckEndpointDeps {
  keys: KeyService;
  declarations: DeclarationRepository;
  postcodes: PostcodeIndex;
  /**
   * Runs after the key is identified and before any 401/403 or the body (SPEC Part B §2): it counts a valid key's
   * requests against the key and everything else against the client's address.
   */
  rateLimit: RequestHandler[];
  clock: () => Date;
}

/** Seconds a client should wait for the first refresh of a fresh install before asking again. */
const FIRST_REFRESH_RETRY_SECONDS = 60;

function errorForField(path: readonly PropertyKey[]): ApiErrorCode {
  if (path[0] === 'date') return 'invalid_date';
  if (path[0] === 'suburb') return 'invalid_suburb';
  return 'invalid_postcode';
}

/** The path the check is served on: mounted straight on the app, the hot path skips a router level. */
export const CHECK_PATH = '/api/v1/check-postcode';

const ENVELOPE_HEAD = Buffer.from('{"success":true,"data":');
const ENVELOPE_MID = Buffer.from(',"metadata":');
const ENVELOPE_TAIL = Buffer.from('}');

/** The handlers of `POST /api/v1/check-postcode`, in the contract's order. */
export function checkHandlers(deps: CheckEndpointDeps): RequestHandler[] {
  const { keys, declarations, postcodes, clock } = deps;

  const answers = new AnswerCache();

  const check: RequestHandler = (_req, res) => {
    const body = res.locals.body as CheckRequest;
    const now = clock();
    const lastUpdated = declarations.lastUpdated;
    const today = sydneyToday(now);
    if (body.date !== undefined && body.date > today) throw new AppError('invalid_date');
    if (lastUpdated === null) {
      throw new AppError('data_unavailable', undefined, { 'Retry-After': String(FIRST_REFRESH_RETRY_SECONDS) });
    }

    const area = body.suburb === undefined ? postcodes.get(body.postcode) : postcodes.narrow(body.postcode, body.suburb);
    if (area === undefined) throw new AppError('postcode_not_found');
    if (area === null) throw new AppError('invalid_suburb');

    const day = body.date ?? today;
    const data = answers.get(`${declarations.version}:${postcodes.version ?? 0}`, `${body.postcode}|${body.suburb ?? ''}|${day}`, () =>
      Buffer.from(JSON.stringify(evaluateEligibility({ area, related: declarations.related(area.lgas), day, lastUpdated }))),
    );
    const metadata: DataMetadata = {
      last_updated: lastUpdated,
      data_source: 'disasterassist.gov.au',
      stale: isStale(lastUpdated, now),
      checked_date: day,
    };
    // The envelope (what CheckResponse describes) is assembled around the cached, already encoded JSON of `data`:
    // bytes outside the JS heap, so a response adds no kilobytes of short-lived strings for the GC to move.
    const payload = Buffer.concat([ENVELOPE_HEAD, data, ENVELOPE_MID, Buffer.from(JSON.stringify(metadata)), ENVELOPE_TAIL]);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', payload.length);
    res.end(payload);
  };

  return [
    identifyApiKey(keys, clock),
    ...deps.rateLimit,
    requireApiKey(keys, clock),
    jsonBody,
    validateBody(CheckRequest, errorForField),
    check,
  ];
}
