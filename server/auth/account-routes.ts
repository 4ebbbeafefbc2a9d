import { randomBytes } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import session from 'express-session';
import { SESSION_COOKIE_NAME } from '../../shared/api/auth';
import type { AccountService } from '../accounts/account-service';
import type { KeyService } from '../keys/key-service';
import { keysRouter } from '../keys/keys-router';
import { authRouter } from './auth-router';
import type { AuthRuntime } from './auth-runtime';
import { extensionCors, originGuard } from './origin-policy';
import { SESSION_COOKIE_ATTRIBUTES } from './session-cookie';

/** The paths that use the cookie session. Nothing else (the check endpoint above all) pays for sessions. */
export const SESSION_PATHS = ['/auth', '/keys'];

/** Session data, key status and fresh keys are per person: no browser or proxy may keep a copy. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * Sign-in and key management, to mount at /api/v1. In order: no-store, CORS for the extension, the Origin check,
 * the cookie session, then the routes.
 */
export function accountRoutes(deps: { runtime: AuthRuntime; accounts: AccountService; keys: KeyService }): Router {
  const { runtime, accounts, keys } = deps;
  const sessions = session({
    name: SESSION_COOKIE_NAME,
    secret: runtime.secret,
    store: runtime.sessions,
    // 256-bit ids from the CSPRNG (the default is 192-bit); the store keeps only their SHA-256.
    genid: () => randomBytes(32).toString('base64url'),
    // The store implements touch, so unchanged sessions are not rewritten; nothing is stored before sign-in.
    resave: false,
    saveUninitialized: false,
    rolling: false,
    unset: 'destroy',
    cookie: {
      ...SESSION_COOKIE_ATTRIBUTES,
      // Secure whenever the request came over HTTPS — directly, or through a proxy trusted with TRUST_PROXY.
      secure: 'auto',
      // The browser may drop the cookie at the absolute limit; the store enforces both limits on its own clock.
      maxAge: runtime.absoluteTimeoutMs,
    },
  });

  const router = Router();
  router.use(SESSION_PATHS, noStore, extensionCors(runtime.origins), originGuard(runtime.origins, SESSION_COOKIE_NAME), sessions);
  router.use(authRouter({ runtime, accounts }));
  router.use(keysRouter({ keys, accounts, audit: runtime.audit, clock: runtime.clock, logger: runtime.logger }));
  return router;
}
