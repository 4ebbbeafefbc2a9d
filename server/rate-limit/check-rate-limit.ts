import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type RateLimitInfo } from 'express-rate-limit';
import { DEFAULT_RATE_LIMIT, RATE_LIMIT_WINDOW_SECONDS } from '../../shared/api/keys';
import { AppError } from '../http/app-error';
import type { ApiKeyOutcome } from '../keys/require-api-key';
import type { SlidingWindowCounter } from './sliding-window';
import { SlidingWindowStore } from './sliding-window-store';

export const WINDOW_MS = RATE_LIMIT_WINDOW_SECONDS * 1000;

type LimitedRequest = Request & { rateLimit: RateLimitInfo & { key: string } };

/** Seconds until the oldest counted request leaves the window: when a waiting client gets through. */
function secondsUntilReset(info: RateLimitInfo, now: number): number {
  return info.resetTime ? Math.max(0, Math.ceil((info.resetTime.getTime() - now) / 1000)) : 0;
}

function setRateLimitHeaders(res: Response, info: RateLimitInfo, now: number): number {
  const reset = secondsUntilReset(info, now);
  res.setHeader('X-RateLimit-Limit', String(info.limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, info.limit - info.used)));
  res.setHeader('X-RateLimit-Reset', String(reset));
  return reset;
}

/**
 * The check endpoint's limiter (SPEC "Limits", Part B §2), to run after `identifyApiKey`. A caller with a valid key
 * and an active subscription is counted per key at its subscription's limit; anyone else per client address at the
 * default limit, so keys cannot be guessed quickly.
 *
 * express-rate-limit's own headers do not fit the contract (its legacy reset is an epoch), so the headers are set
 * here from its result, before anything answers, so that every check response carries them.
 */
export function checkRateLimit(counter: SlidingWindowCounter, now: () => number = Date.now): RequestHandler[] {
  const outcomeOf = (res: Response) => res.locals.apiKey as ApiKeyOutcome | undefined;
  const store = new SlidingWindowStore(counter);

  const limiter = rateLimit({
    windowMs: WINDOW_MS,
    store,
    standardHeaders: false,
    legacyHeaders: false,
    limit: (_req, res) => {
      const outcome = outcomeOf(res);
      return outcome?.ok ? outcome.subscription.rate_limit : DEFAULT_RATE_LIMIT;
    },
    keyGenerator: (req, res) => {
      const outcome = outcomeOf(res);
      return outcome?.ok ? `key:${outcome.key.id}` : `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`;
    },
    handler: (req, res, next) => {
      const info = (req as LimitedRequest).rateLimit;
      // A refused request leaves the window as it found it (SPEC Part B §2: a 429 does not count).
      store.decrement(info.key);
      const wait = setRateLimitHeaders(res, { ...info, used: info.limit }, now());
      next(new AppError('rate_limited', undefined, { 'Retry-After': String(Math.max(1, wait)) }));
    },
  });

  const headers: RequestHandler = (req, res, next) => {
    setRateLimitHeaders(res, (req as LimitedRequest).rateLimit, now());
    next();
  };

  return [limiter, headers];
}
