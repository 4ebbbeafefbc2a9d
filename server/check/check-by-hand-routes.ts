import type { RequestHandler } from 'express';
import { CHECK_ENDPOINTS } from '../../shared/api/check';
import { isSubscriptionActive, type AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import { errorResponse, SESSION_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { countUsage, type UsageCounter } from '../keys/require-api-key';
import { callerSubscription, requireSession } from '../sessions/require-session';
import { BY_HAND_PREFIX } from '../usage/by-hand';

export interface CheckByHandRoutesDeps {
  accounts: AccountService;
  clock: () => Date;
  /**
   * The route table's fresh data and cookie session, in front of the check but not of its 405: a wrong method was
   * always answered before any session was read.
   */
  before: readonly RequestHandler[];
  /** The check's rate limiter: checks by hand share the subscription's limit, in a bucket of their own. */
  rateLimit: readonly RequestHandler[];
  usage?: UsageCounter | null;
  /** answerHandlers: the same answers as the API key's check. */
  answer: readonly RequestHandler[];
}

/**
 * Behind requireSession: 403 while the organisation's subscription is inactive, else the signed-in member is the
 * caller "by hand (console)" — counted and limited as one more caller of the subscription, beside its keys.
 */
export function byHandCaller(clock: () => Date): RequestHandler {
  return (_req, res, next) => {
    const subscription = callerSubscription(res);
    if (!subscription || !isSubscriptionActive(subscription, clock())) {
      return next(new ContractError('subscription_inactive'));
    }
    res.locals.caller = { id: `${BY_HAND_PREFIX}${subscription.id}`, subscription };
    next();
  };
}

/**
 * POST /api/v1/session/check-postcode: the check for a member signed in to the console (a GP on desktop practice
 * software, any role), with the same body and answer as the API key's check. Refused 403 while the subscription is
 * inactive, rate-limited at the subscription's limit, counted in usage as "by hand (console)".
 */
export function checkByHandRoutes(deps: CheckByHandRoutesDeps): Route[] {
  const caller = byHandCaller(deps.clock);
  const counting = deps.usage ? [countUsage(deps.usage, deps.clock)] : [];
  return [
    defineRoute({
      endpoint: CHECK_ENDPOINTS.checkByHand,
      summary: 'The check, by hand from the console (any member of an organisation with an active subscription)',
      description:
        'The same body and answer as POST /api/v1/check-postcode, with the cookie session instead of a key; rate-limited at the subscription’s limit and counted in usage as "by hand (console)".',
      security: SESSION_AUTH,
      gates: [...deps.before, requireSession(deps.accounts)],
      ok: 'The eligibility answer',
      responses: {
        400: errorResponse('Invalid postcode format, invalid JSON, invalid date or suburb'),
        403: errorResponse('API subscription is inactive, or request origin not allowed'),
        404: errorResponse('Postcode not found'),
        429: errorResponse('Rate limit exceeded; wait Retry-After seconds'),
        503: errorResponse('Disaster data is not available yet, or rate limiting is unavailable'),
      },
      handlers: [caller, ...counting, ...deps.rateLimit, ...deps.answer],
    }),
  ];
}
