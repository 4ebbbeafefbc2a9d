import type { RequestHandler } from 'express';
import { z } from 'zod';
import { CHECK_ENDPOINTS } from '../../shared/api/check';
import { ContractError } from '../contract-error';
import { jsonBody } from '../http/json-body';
import { API_KEY_AUTH, errorResponse } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { apiKeyGate, type ApiKeyGateDeps } from '../keys/require-api-key';
import { questionOf, type CheckAnswers } from './check-answers';

/** The gate's `rateLimit` runs before the body is read too: every check is counted, however malformed. */
export type CheckRoutesDeps = ApiKeyGateDeps;

/**
 * What answers a check once its caller is let through and counted: the body read, validated and answered from the
 * cache of encoded answers. Shared by the API key's check and the console's check by hand (check-by-hand-routes.ts).
 */
export function answerHandlers(answers: CheckAnswers, clock: () => Date): RequestHandler[] {
  const check: RequestHandler = (req, res) => {
    const read = questionOf(req.body);
    if ('refused' in read) throw new ContractError(read.refused);
    const answer = answers.answer(read.question, clock());
    if (typeof answer === 'string') throw new ContractError(answer);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', answer.response.length);
    res.end(answer.response);
  };
  return [jsonBody, check];
}

/** What every answer of the check's rate limiter carries (the batch's too: it is counted as one check). */
export const rateLimitHeaders = z.object({
  'X-RateLimit-Limit': z.string().meta({ description: 'Requests allowed per 60-second sliding window' }),
  'X-RateLimit-Remaining': z.string().meta({ description: 'Requests left in the current window' }),
  'X-RateLimit-Reset': z.string().meta({ description: 'Seconds until the oldest counted request leaves the window' }),
});

/**
 * POST /api/v1/check-postcode, the hot path: its handlers read the request themselves (the key, the counting, the body
 * and its cached answer), so the route adds nothing per request.
 */
export function checkRoutes(deps: CheckRoutesDeps, answer: RequestHandler[]): Route[] {
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
