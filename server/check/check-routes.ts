import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { CHECK_ENDPOINTS, CheckRequest, type CheckResponse } from '../../shared/api/check';
import type { ApiErrorCode } from '../../shared/api/errors';
import { sydneyToday } from '../../shared/domain/dates';
import { evaluateEligibility } from '../../shared/eligibility/evaluate';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { ContractError } from '../contract-error';
import { jsonBody } from '../http/json-body';
import { API_KEY_AUTH, errorResponse } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { withValidBody } from '../http/validate-request';
import { apiKeyGate, type ApiKeyGateDeps } from '../keys/require-api-key';
import type { PostcodeIndex } from '../postcodes/postcode-index';
import { dataMetadata, lastRefreshOrUnavailable } from './data-metadata';
import { AnswerCache } from './answer-cache';

/** The gate's `rateLimit` runs before the body is read too: every check is counted, however malformed. */
export interface CheckRoutesDeps extends ApiKeyGateDeps {
  declarations: DeclarationRepository;
  postcodes: PostcodeIndex;
}

function errorForField(path: readonly PropertyKey[]): ApiErrorCode {
  if (path[0] === 'date') return 'invalid_date';
  if (path[0] === 'suburb') return 'invalid_suburb';
  return 'invalid_postcode';
}

/**
 * What answers a check once its caller is let through and counted: the body read, validated and answered from the
 * cache of encoded answers. Shared by the API key's check and the console's check by hand (check-by-hand-routes.ts).
 */
export function answerHandlers(deps: Pick<CheckRoutesDeps, 'declarations' | 'postcodes' | 'clock'>): RequestHandler[] {
  const { declarations, postcodes, clock } = deps;

  const answers = new AnswerCache();

  const check = (body: CheckRequest, _req: Request, res: Response): void => {
    const now = clock();
    const today = sydneyToday(now);
    if (body.date !== undefined && body.date > today) throw new ContractError('invalid_date');
    const lastUpdated = lastRefreshOrUnavailable(declarations, now);

    const area =
      body.suburb === undefined ? postcodes.get(body.postcode) : postcodes.narrow(body.postcode, body.suburb);
    if (area === undefined) throw new ContractError('postcode_not_found');
    if (area === null) throw new ContractError('invalid_suburb');

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

  return [jsonBody, withValidBody(CheckRequest, errorForField, check)];
}

const rateLimitHeaders = z.object({
  'X-RateLimit-Limit': z.string().meta({ description: 'Requests allowed per 60-second sliding window' }),
  'X-RateLimit-Remaining': z.string().meta({ description: 'Requests left in the current window' }),
  'X-RateLimit-Reset': z.string().meta({ description: 'Seconds until the oldest counted request leaves the window' }),
});

/**
 * POST /api/v1/check-postcode, the hot path: its handlers read the request themselves (the key, the counting, the body
 * and its cached answer), so the route adds nothing per request.
 */
export function checkRoutes(deps: CheckRoutesDeps, answer = answerHandlers(deps)): Route[] {
  return [
    defineRoute({
      endpoint: CHECK_ENDPOINTS.check,
      summary: 'Is this postcode under an active disaster declaration?',
      description:
        'Checks one Australian postcode against the disaster declarations (DRFA activations) and answers with the eligibility summary, location, proforma text for the clinical notes, the related declarations and disclaimers. Checks run in this order: key header, key, subscription, rate limit, body.',
      security: API_KEY_AUTH,
      ok: { description: 'The eligibility answer', headers: rateLimitHeaders },
      responses: {
        400: errorResponse('Invalid postcode format, invalid JSON, invalid date or suburb'),
        401: errorResponse('Missing x-api-key header / Invalid API key'),
        403: errorResponse('API subscription is inactive'),
        404: errorResponse('Postcode not found'),
        413: errorResponse('Request body over 10 kB'),
        415: errorResponse('Content-Type is not application/json'),
        429: errorResponse('Rate limit exceeded; wait Retry-After seconds'),
        503: errorResponse(
          'Disaster data is not available yet (before the first refresh), or rate limiting is unavailable (the shared counter cannot be reached); wait Retry-After seconds',
        ),
      },
      handlers: [...apiKeyGate(deps), ...answer],
    }),
  ];
}
