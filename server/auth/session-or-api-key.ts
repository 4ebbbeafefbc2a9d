import { Router, type RequestHandler } from 'express';
import type { AccountService } from '../accounts/account-service';
import type { KeyService } from '../keys/key-service';
import { identifyApiKey, requireApiKey } from '../keys/require-api-key';
import { requireSession } from '../sessions/require-session';

export interface SessionOrApiKeyDeps {
  accounts: AccountService;
  keys: KeyService;
  clock: () => Date;
  /**
   * The check's rate limiter, run after the key is identified and before any 401/403 (as on the check), so a key's
   * reads count against its own limit and a guessed key costs the guesser its own budget.
   */
  rateLimit: readonly RequestHandler[];
}

/**
 * For reads a practice's systems make as well as its admin: with an `x-api-key` header the key's account (identified,
 * rate limited and refused as the check does), otherwise the cookie session's. Either way `res.locals.account` is the
 * caller's account behind it (read it with `signedInAccount`).
 */
export function sessionOrApiKey(deps: SessionOrApiKeyDeps): RequestHandler {
  const { accounts, keys, clock } = deps;
  const session = requireSession(accounts);
  // A router runs the key's handlers in a row, as if mounted one after the other, and calls next() after the last.
  const byKey = Router().use(
    identifyApiKey(keys, clock),
    ...deps.rateLimit,
    requireApiKey(keys, clock),
    (_req, res, next) => {
      const outcome = res.locals.apiKey;
      if (outcome?.ok) res.locals.account = outcome.account;
      next();
    },
  );
  return (req, res, next) => (req.headers['x-api-key'] === undefined ? session : byKey)(req, res, next);
}
