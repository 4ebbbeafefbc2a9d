import type { RequestHandler } from 'express';
import { AppError } from '../http/app-error';
import type { Authentication, KeyService } from './key-service';

export type ApiKeyOutcome = Authentication | { ok: false; reason: 'missing_api_key' };

/**
 * Works out who is calling from the x-api-key header, without answering yet: the rate limiter in between needs to
 * know whether to count the request against the key or against the client's address.
 */
export function identifyApiKey(keys: KeyService, clock: () => Date): RequestHandler {
  return (req, res, next) => {
    const header = req.headers['x-api-key'];
    let outcome: ApiKeyOutcome;
    if (header === undefined) outcome = { ok: false, reason: 'missing_api_key' };
    else outcome = keys.authenticate((Array.isArray(header) ? header[0] : header)?.trim() ?? '', clock());
    res.locals.apiKey = outcome;
    if (outcome.ok) res.locals.keyId = outcome.key.id;
    next();
  };
}

/** Answers 401/403 for a caller `identifyApiKey` did not accept, in the contract's order. */
export function requireApiKey(keys: KeyService, clock: () => Date): RequestHandler {
  return (_req, res, next) => {
    const outcome = res.locals.apiKey;
    if (!outcome) return next(new AppError('missing_api_key'));
    if (!outcome.ok) return next(new AppError(outcome.reason));
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
}

/**
 * The API key's handlers, in the contract's order: identify the key, rate limit, then refuse (401/403) a caller
 * without a valid key and an active subscription. The check and every read an API key may make run this one chain.
 */
export function apiKeyGate(deps: ApiKeyGateDeps): RequestHandler[] {
  const { keys, clock } = deps;
  return [identifyApiKey(keys, clock), ...deps.rateLimit, requireApiKey(keys, clock)];
}
