import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type RateLimitInfo } from 'express-rate-limit';
import { DEFAULT_RATE_LIMIT, RATE_LIMIT_WINDOW_SECONDS } from '../../shared/api/keys';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import type { CountedCaller } from '../keys/require-api-key';
import type { SlidingWindowCounter } from './sliding-window';
import { SlidingWindowStore, storeKey } from './sliding-window-store';

export const WINDOW_MS = RATE_LIMIT_WINDOW_SECONDS * 1000;
type LimitedRequest = Request & { rateLimit?: RateLimitInfo };

function callerOf(res: Response): CountedCaller | undefined {
  return res.locals.caller;
}

/**
 * Read from the subscription `identifyApiKey` found for this request, which the data store reloads when the admin
 * CLI changes it: a new limit applies from the next request, to the requests already in the window too.
 */
function limitOf(res: Response): number {
  return limitFor(callerOf(res));
}

/** The limit a caller is counted at: its subscription's, or the default for a caller without a valid key. */
export function limitFor(caller: CountedCaller | undefined): number {
  return caller?.subscription.rate_limit ?? DEFAULT_RATE_LIMIT;
}

/** The bucket a valid key's requests share, whatever they call (the check, a read, an MCP tool). */
export const keyBucket = (caller: CountedCaller): string => `key:${caller.id}`;

/**
 * A valid key with an active subscription is counted per key; anything else per client address (same limit, same
 * headers), so guessing keys costs the guesser its own budget. `req.ip` follows Express's `trust proxy` (TRUST_PROXY):
 * without it X-Forwarded-For is ignored and the socket's address is used. IPv6 addresses are grouped by /56, the block
 * one subscriber usually holds, so rotating addresses inside it does not buy more requests.
 */
function bucketOf(req: Request, res: Response): string {
  const caller = callerOf(res);
  if (caller) return keyBucket(caller);
  return `ip:${clientAddress(req)}`;
}

/** Whole seconds until `resetTime`, rounded up so that a client waiting this long is past it. */
export function secondsUntil(resetTime: Date | undefined, now: number): number {
  return resetTime ? Math.max(0, Math.ceil((resetTime.getTime() - now) / 1000)) : RATE_LIMIT_WINDOW_SECONDS;
}

function setRateLimitHeaders(res: Response, info: RateLimitInfo, now: number): number {
  const reset = secondsUntil(info.resetTime, now);
  res.setHeader('X-RateLimit-Limit', String(info.limit));
  res.setHeader('X-RateLimit-Remaining', String(info.remaining));
  res.setHeader('X-RateLimit-Reset', String(reset));
  return reset;
}

/**
 * The check endpoint's limiter (100 a minute per key unless the subscription sets its own; a 429 does not count):
 * `limit` requests per `WINDOW_MS` sliding window, to run after `identifyApiKey` and before anything can answer, so
 * that every check response carries the headers:
 *
 * - `X-RateLimit-Limit`: the limit applied (the subscription's, or the default for unidentified callers);
 * - `X-RateLimit-Remaining`: requests still accepted now, after this one; 0 on a 429;
 * - `X-RateLimit-Reset`: seconds until the oldest counted request leaves the window (when Remaining next grows),
 *   at most the window's length; never an epoch;
 * - `Retry-After` (429 only): the same number, at least 1; a client that waits that long gets through.
 *
 * express-rate-limit runs it: its `limit(req, res)` gives the caller's limit (the subscription's, read from what
 * `identifyApiKey` found, or the default), it counts through `store` (express-rate-limit's Store over the sliding
 * window), decides the 429 itself (`totalHits > limit`), hands the refusal to `handler` and leaves its result on
 * `req.rateLimit`, from which the headers are set. Two things it cannot express, kept small and tested
 * (test/unit/rate-limit/express-rate-limit-contract.test.ts pins both library behaviours):
 *
 * 1. The store must know the limit when it counts. Refusing without counting, exactly, means deciding and recording
 *    in one step (`SlidingWindowCounter.consume`, one Lua script in Redis): counting first and giving a refusal back
 *    with `decrement` would let a refused request hold a slot while other requests arrive — for a round trip, with a
 *    shared store — and could give back someone else's slot. express-rate-limit calls `store.increment(key)` with the
 *    key alone and resolves `limit(req, res)` only afterwards, so the key generator puts this request's limit in
 *    front of the bucket (`storeKey`); the store counts per bucket. Key and `limit` read the same `limitOf(res)`, so
 *    the store and the library always decide with one number.
 * 2. Its headers cannot be the contract's: the legacy `X-RateLimit-Reset` is an epoch (and it rewrites `Date`), the
 *    draft-6 headers are named `RateLimit-*`, draft-7/8 are one combined header, all on the wall clock rather than the
 *    app's; its `Retry-After` comes only with its headers. So they are off, and the headers are set here from
 *    `req.rateLimit`; `handler` adds `Retry-After` and answers through the app's error envelope.
 */
export function checkRateLimit(counter: SlidingWindowCounter, now: () => number = Date.now): RequestHandler[] {
  const limiter = rateLimit({
    windowMs: WINDOW_MS,
    store: new SlidingWindowStore(counter, now),
    standardHeaders: false,
    legacyHeaders: false,
    limit: (_req, res) => limitOf(res),
    // The limit rides in the key (point 1 above): the only thing express-rate-limit hands its store. So does the data
    // epoch the caller was identified on, when the counter compares it (a StaleDataError then goes on to `next`).
    keyGenerator: (req, res) => storeKey(bucketOf(req, res), limitOf(res), res.locals.dataEpoch),
    handler: (req, res, next) => {
      // The store did not record this request, so there is nothing to give back: a 429 never counts.
      const wait = setRateLimitHeaders(res, (req as LimitedRequest).rateLimit!, now());
      next(new ContractError('rate_limited', { retryAfterSeconds: Math.max(1, wait) }));
    },
  });

  const headers: RequestHandler = (req, res, next) => {
    const info = (req as LimitedRequest).rateLimit;
    if (info) setRateLimitHeaders(res, info, now());
    next();
  };

  // A shared counter that cannot be reached fails closed: its rejection is already the contract's 503 with Retry-After
  // (rateLimitUnavailable), which express-rate-limit hands to `next` as it is (passOnStoreError is off).
  return [limiter, headers];
}
