import { Router, type RequestHandler } from 'express';
import type { AccountService } from '../accounts/account-service';
import { apiKeyGate, type ApiKeyGateDeps } from '../keys/require-api-key';
import { requireSession } from '../sessions/require-session';

/** The gate's `rateLimit` is the check's, so a key's reads count against its own limit as its checks do. */
export interface SessionOrApiKeyDeps extends ApiKeyGateDeps {
  accounts: AccountService;
}

/**
 * For reads a practice's systems make as well as its admin: with an `x-api-key` header the key's account (identified,
 * rate limited and refused as the check does), otherwise the cookie session's (any role). Either way
 * `res.locals.subscription` is the caller's organisation's (read it with `callerSubscription`).
 */
export function sessionOrApiKey(deps: SessionOrApiKeyDeps): RequestHandler {
  const session = requireSession(deps.accounts);
  // A router runs the key's handlers in a row, as if mounted one after the other, and calls next() after the last.
  const byKey = Router().use(...apiKeyGate(deps), (_req, res, next) => {
    const outcome = res.locals.apiKey;
    if (outcome?.ok) res.locals.subscription = outcome.subscription;
    next();
  });
  return (req, res, next) => (req.headers['x-api-key'] === undefined ? session : byKey)(req, res, next);
}
