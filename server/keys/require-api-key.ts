import type { Request, RequestHandler, Response } from 'express';
import { ContractError } from '../contract-error';
import { StaleDataError, type DataEpoch } from '../storage/postgres/data-epoch';
import type { Subscription } from '../accounts/account-records';
import type { Authentication, KeyService } from './key-service';

export type ApiKeyOutcome = Authentication | { ok: false; reason: 'missing_api_key' };

/** A caller the rate limit and usage count: its bucket id (a key's id) and the subscription whose limit applies. */
export interface CountedCaller {
  id: string;
  subscription: Subscription;
}

/**
 * Where a valid key's requests are counted by how they ended (server/usage's UsageService; declared here so that
 * the key gate does not depend on the usage feature, which depends on it).
 */
export interface UsageCounter {
  count(subscriptionId: string, keyId: string, kind: 'answered' | 'refused' | 'rate_limited', now: Date): void;
  /** Rows checked in a batch (POST /api/v1/check-batch), counted apart from the requests. */
  countRows(subscriptionId: string, keyId: string, rows: number, now: Date): void;
}

/** The key a request carries, as sent; undefined when it sends none. */
export type KeyOf = (req: Request) => string | undefined;

/** The check's header: `x-api-key`. */
export const xApiKey: KeyOf = (req) => {
  const header = req.headers['x-api-key'];
  return header === undefined ? undefined : ((Array.isArray(header) ? header[0] : header) ?? '');
};

/**
 * Looks the caller up in what this process holds, and notes the data epoch that is at least as old as what it read
 * (`epoch.known` now: the data only moves forward, and `known` only after it), or none when `epoch` is null.
 */
function identify(
  keys: KeyService,
  req: Request,
  res: Response,
  now: Date,
  epoch: string | undefined,
  keyOf: KeyOf = xApiKey,
): void {
  const key = keyOf(req);
  let outcome: ApiKeyOutcome;
  if (key === undefined) outcome = { ok: false, reason: 'missing_api_key' };
  else outcome = keys.authenticate(key.trim(), now);
  res.locals.apiKey = outcome;
  res.locals.keyId = outcome.ok ? outcome.key.id : undefined;
  res.locals.caller = outcome.ok ? { id: outcome.key.id, subscription: outcome.subscription } : undefined;
  res.locals.dataEpoch = epoch;
}

/**
 * Works out who is calling from the x-api-key header (or where `keyOf` says), without answering yet: the rate limiter
 * in between needs to know whether to count the request against the key or against the client's address.
 */
export function identifyApiKey(
  keys: KeyService,
  clock: () => Date,
  epoch?: DataEpoch | null,
  keyOf?: KeyOf,
): RequestHandler {
  return (req, res, next) => {
    identify(keys, req, res, clock(), epoch?.known, keyOf);
    next();
  };
}

/** Answers 401/403 for a caller `identifyApiKey` did not accept, in the contract's order. */
export function requireApiKey(keys: KeyService, clock: () => Date): RequestHandler {
  return (_req, res, next) => {
    const outcome = res.locals.apiKey;
    if (!outcome) return next(new ContractError('missing_api_key'));
    if (!outcome.ok) return next(new ContractError(outcome.reason));
    keys.recordUse(outcome.key.id, clock());
    next();
  };
}

export interface ApiKeyGateDeps {
  keys: KeyService;
  clock: () => Date;
  /**
   * The check's rate limiter, run after the key is identified and before any 401/403, so that every request is
   * counted: a valid key's against the key, everything else against the client's address (a guessed key costs the
   * guesser its own budget).
   */
  rateLimit: readonly RequestHandler[];
  /**
   * Several instances on PostgreSQL and Redis, with a rate-limit counter that compares data epochs: how the
   * limiter's round trip also tells whether this process is current (storage/postgres/data-epoch.ts). Null or
   * absent: the caller made sure it is current before the gate (freshData), or runs alone.
   */
  dataEpoch?: DataEpoch | null;
  /** Where each request of a valid key is counted by how it ended (GET /api/v1/usage); absent: not counted. */
  usage?: UsageCounter | null;
}

/**
 * Counts, once the answer is sent, a request of a counted caller (a valid key, or checks by hand): 2xx answered, 429 rate-limited, other 4xx refused
 * (a 5xx is the service's failure, not the caller's use). Registered before the rate limiter, which may answer first.
 */
export function countUsage(usage: UsageCounter, clock: () => Date): RequestHandler {
  return (_req, res, next) => {
    res.once('finish', () => {
      const caller = res.locals.caller;
      if (!caller) return;
      const status = res.statusCode;
      const kind = status === 429 ? 'rate_limited' : status < 400 ? 'answered' : status < 500 ? 'refused' : null;
      if (kind) usage.count(caller.subscription.id, caller.id, kind, clock());
    });
    next();
  };
}

/** Runs `handlers` one after the other as a router would, then `done` (with the first error, if any). */
function inTurn(handlers: readonly RequestHandler[], req: Request, res: Response, done: (err?: unknown) => void): void {
  let i = 0;
  const step = (err?: unknown): void => {
    if (err !== undefined || i === handlers.length) return done(err);
    try {
      void handlers[i++]!(req, res, step);
    } catch (thrown) {
      done(thrown);
    }
  };
  step();
}

/**
 * The rate limiter, for a counter that compares the data epoch the caller was identified on with the shared one.
 * When they differ, nothing was counted: this process catches up with the database (one shared query; at most 500 ms,
 * then from memory as freshData does), identifies the caller again on what it now holds and has the request counted
 * without comparing again — it is now identified on everything committed before it arrived, and comparing again
 * could keep a request waiting while writes go on. So each request is counted exactly once, in the right bucket, at
 * its subscription's current limit.
 */
function limitOnCurrentData(deps: ApiKeyGateDeps, epoch: DataEpoch): RequestHandler {
  const { keys, clock, rateLimit } = deps;
  return (req, res, next) =>
    inTurn(rateLimit, req, res, (err) => {
      if (!(err instanceof StaleDataError)) return next(err);
      void epoch.catchUp(err.epoch).then(() => {
        identify(keys, req, res, clock(), undefined);
        inTurn(rateLimit, req, res, next);
      });
    });
}

/**
 * The API key's handlers, in the contract's order: identify the key, rate limit, then refuse (401/403) a caller
 * without a valid key and an active subscription. The check and every read an API key may make run this one chain.
 */
export function apiKeyGate(deps: ApiKeyGateDeps): RequestHandler[] {
  const { keys, clock, dataEpoch, usage } = deps;
  const limit = dataEpoch ? [limitOnCurrentData(deps, dataEpoch)] : deps.rateLimit;
  const counting = usage ? [countUsage(usage, clock)] : [];
  return [identifyApiKey(keys, clock, dataEpoch), ...counting, ...limit, requireApiKey(keys, clock)];
}
