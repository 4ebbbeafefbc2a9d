import type { RequestHandler } from 'express';
import { CheckRequest, CheckResponse } from '../../shared/api/check';
import { isSubscriptionActive, type AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import { errorResponse, jsonRequestBody, jsonResponse, SESSION_AUTH, type ApiRegistry } from '../http/openapi-registry';
import { countUsage, type UsageCounter } from '../keys/require-api-key';
import { callerSubscription, requireSession } from '../sessions/require-session';
import { BY_HAND_PREFIX } from '../usage/by-hand';

export interface CheckByHandDeps {
  accounts: AccountService;
  clock: () => Date;
  /** The check's rate limiter: checks by hand share the subscription's limit, in a bucket of their own. */
  rateLimit: readonly RequestHandler[];
  usage?: UsageCounter | null;
  /** answerHandlers: the same answers as the API key's check. */
  answer: readonly RequestHandler[];
}

/**
 * POST /api/v1/session/check-postcode: the check for a member signed in to the console (a GP on desktop practice
 * software, any role), with the same body and answer as the API key's check. Refused 403 while the subscription is
 * inactive, rate-limited at the subscription's limit, counted in usage as "by hand (console)".
 */
export function checkByHandHandlers(deps: CheckByHandDeps): RequestHandler[] {
  const { clock } = deps;
  const caller: RequestHandler = (_req, res, next) => {
    const subscription = callerSubscription(res);
    if (!subscription || !isSubscriptionActive(subscription, clock())) {
      return next(new ContractError('subscription_inactive'));
    }
    // Counted and limited as one more caller of the subscription, beside its keys.
    res.locals.caller = { id: `${BY_HAND_PREFIX}${subscription.id}`, subscription };
    next();
  };
  const counting = deps.usage ? [countUsage(deps.usage, clock)] : [];
  return [requireSession(deps.accounts), caller, ...counting, ...deps.rateLimit, ...deps.answer];
}

export function registerCheckByHandPaths(registry: ApiRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/api/v1/session/check-postcode',
    summary: 'The check, by hand from the console (any member of an organisation with an active subscription)',
    description:
      'The same body and answer as POST /api/v1/check-postcode, with the cookie session instead of a key; rate-limited at the subscription’s limit and counted in usage as "by hand (console)".',
    security: SESSION_AUTH,
    request: jsonRequestBody(CheckRequest),
    responses: {
      200: jsonResponse(CheckResponse, 'The eligibility answer'),
      400: errorResponse('Invalid postcode format, invalid JSON, invalid date or suburb'),
      401: errorResponse('Sign in required'),
      403: errorResponse('API subscription is inactive, or request origin not allowed'),
      404: errorResponse('Postcode not found'),
      429: errorResponse('Rate limit exceeded; wait Retry-After seconds'),
      503: errorResponse('Disaster data is not available yet, or rate limiting is unavailable'),
    },
  });
}
