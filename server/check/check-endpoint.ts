import type { Request, RequestHandler, Response } from 'express';
import { CheckRequest, type CheckResponse } from '../../shared/api/check';
import type { ApiErrorCode } from '../../shared/api/errors';
import { sydneyToday } from '../../shared/domain/dates';
import { evaluateEligibility } from '../../shared/eligibility/evaluate';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { AppError } from '../http/app-error';
import { jsonBody } from '../http/json-body';
import { withValidBody } from '../http/validate-request';
import type { KeyService } from '../keys/key-service';
import { identifyApiKey, requireApiKey } from '../keys/require-api-key';
import type { PostcodeIndex } from '../postcodes/postcode-index';
import { dataMetadata, lastRefreshOrUnavailable } from './data-metadata';
import { AnswerCache } from './answer-cache';

export interface CheckEndpointDeps {
  keys: KeyService;
  declarations: DeclarationRepository;
  postcodes: PostcodeIndex;
  /**
   * Runs after the key is identified and before any 401/403 or the body is read, so that every check is counted: a
   * valid key's requests against the key, everything else against the client's address.
   */
  rateLimit: RequestHandler[];
  clock: () => Date;
}

function errorForField(path: readonly PropertyKey[]): ApiErrorCode {
  if (path[0] === 'date') return 'invalid_date';
  if (path[0] === 'suburb') return 'invalid_suburb';
  return 'invalid_postcode';
}

/** The handlers of the check (`POST /api/v1/check-postcode`), in the contract's order. */
export function checkHandlers(deps: CheckEndpointDeps): RequestHandler[] {
  const { keys, declarations, postcodes, clock } = deps;

  const answers = new AnswerCache();

  const check = (body: CheckRequest, _req: Request, res: Response): void => {
    const now = clock();
    const today = sydneyToday(now);
    if (body.date !== undefined && body.date > today) throw new AppError('invalid_date');
    const lastUpdated = lastRefreshOrUnavailable(declarations);

    const area =
      body.suburb === undefined ? postcodes.get(body.postcode) : postcodes.narrow(body.postcode, body.suburb);
    if (area === undefined) throw new AppError('postcode_not_found');
    if (area === null) throw new AppError('invalid_suburb');

    const day = body.date ?? today;
    const metadata = dataMetadata(lastUpdated, now, day);
    // A whole response depends only on the data, the day and the question, so it is encoded once and served as bytes
    // (outside the JS heap: a response adds no kilobytes of short-lived strings for the GC to move).
    const dataVersion = `${declarations.version}:${postcodes.version ?? 0}:${lastUpdated}:${metadata.stale}`;
    const payload = answers.get(dataVersion, `${body.postcode}|${body.suburb ?? ''}|${day}`, () => {
      const response: CheckResponse = {
        success: true,
        data: evaluateEligibility({ area, related: declarations.related(area.lgas), day, lastUpdated }),
        metadata,
      };
      return Buffer.from(JSON.stringify(response));
    });
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', payload.length);
    res.end(payload);
  };

  return [
    identifyApiKey(keys, clock),
    ...deps.rateLimit,
    requireApiKey(keys, clock),
    jsonBody,
    withValidBody(CheckRequest, errorForField, check),
  ];
}
