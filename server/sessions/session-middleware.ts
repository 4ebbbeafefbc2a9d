import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import session from 'express-session';
import type { Logger } from '../logger';
import { SESSION_COOKIE_NAME } from '../../shared/api/auth';
import { extensionCors, originGuard, type OriginPolicy } from './origin-policy';
import { SESSION_COOKIE_ATTRIBUTES } from './session-cookie';
import type { SessionStore } from './session-store';

export interface CookieSessionOptions {
  store: SessionStore;
  secret: string;
  /** The cookie's lifetime; the store enforces both limits on its own clock whatever the browser keeps. */
  absoluteTimeoutMs: number;
  origins: OriginPolicy;
  /** Where store failures that happen after the answer has started are reported. */
  logger: Pick<Logger, 'warn'>;
}

/** Session data, key status and fresh keys are per person: no browser or proxy may keep a copy. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * What runs in front of every cookie-session endpoint (and of nothing else: the check endpoint above all never pays
 * for sessions), in order: no-store, CORS for the extension, the Origin check, then the cookie session itself.
 */
export function cookieSession(options: CookieSessionOptions): RequestHandler[] {
  const { origins, logger } = options;
  const sessions = session({
    name: SESSION_COOKIE_NAME,
    secret: options.secret,
    store: options.store,
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
      maxAge: options.absoluteTimeoutMs,
    },
  });
  return [
    noStore,
    extensionCors(origins),
    originGuard(origins, SESSION_COOKIE_NAME),
    storeErrorsKept(sessions, logger),
  ];
}

/**
 * express-session, with what it does when the store fails made safe:
 *
 * - A session that could not be loaded is left as it is. express-session answers the load's error (503
 *   `session_unavailable`) and then, finding no session on the request, would destroy the one named by the cookie
 *   (`unset: 'destroy'`): during an outage that DEL fails and cuts the connection; when Redis merely hung, the DEL is
 *   queued and runs once Redis answers — and a valid session ends because the store was slow.
 * - A store error after the answer has started (a write at the end of the response) is logged, not passed on: the
 *   error handler could then only destroy the socket, and the next request on that keep-alive connection — often
 *   someone else's check, through a proxy — would get no answer.
 */
function storeErrorsKept(sessions: RequestHandler, logger: Pick<Logger, 'warn'>): RequestHandler {
  return (req, res, next) => {
    let loaded = false;
    sessions(req, res, (err?: unknown) => {
      if (loaded) {
        if (res.headersSent) {
          logger.warn({ err, method: req.method, path: req.path }, 'could not write the session after answering');
        } else next(err);
        return;
      }
      loaded = true;
      if (err !== undefined && err !== null && err !== 'route' && err !== 'router') {
        (req as { sessionID?: string }).sessionID = undefined;
      }
      next(err);
    });
  };
}
