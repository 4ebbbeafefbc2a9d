import { Router, type Request, type RequestHandler } from 'express';
import { LoginRequest, type SessionData } from '../../shared/api/auth';
import type { AccountService } from '../accounts/account-service';
import { HashingBusyError } from '../accounts/hashing-limiter';
import type { Account } from '../accounts/account-store';
import { AppError } from '../http/app-error';
import { clientAddress } from '../http/client-address';
import { jsonBody } from '../http/json-body';
import { withValidBody } from '../http/validate-request';
import { RATE_LIMIT_UNAVAILABLE_RETRY_SECONDS } from '../rate-limit/check-rate-limit';
import { RateLimitUnavailableError } from '../rate-limit/sliding-window';
import { sessionAccount } from '../sessions/require-session';
import { clearSessionCookie } from '../sessions/session-cookie';
import type { SessionStore } from '../sessions/session-store';
import '../sessions/session-types';
import { SignInError, type SignInService } from './sign-in';

export interface AuthRouterDeps {
  signIn: SignInService;
  accounts: AccountService;
  sessions: SessionStore;
  clock: () => Date;
  idleTimeoutMs: number;
}

const SIGNED_OUT: SessionData = { authenticated: false, account: null, expires_at: null };

function promisify(run: (done: (err?: unknown) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((err) => (err ? reject(err) : resolve())));
}

/**
 * POST /login, POST /logout, GET /session: sign-in with email and password, sign-out, and who is signed in. Runs
 * behind the cookie session (cookieSession). On sign-in the session id is regenerated (no fixation) and the session
 * holds the account id only; the rules of sign-in (throttling, equal cost of unknown emails) are SignInService's.
 */
export function authRouter(deps: AuthRouterDeps): Router {
  const { signIn, accounts, sessions, clock, idleTimeoutMs } = deps;

  const sessionView = async (req: Request, account: Account): Promise<SessionData> => {
    const expires = await sessions.expiresAt(req.sessionID);
    return {
      authenticated: true,
      account: { id: account.id, email: account.email },
      // Right after sign-in the session is not stored yet: its idle deadline starts now.
      expires_at: (expires ?? new Date(clock().getTime() + idleTimeoutMs)).toISOString(),
    };
  };

  const login = withValidBody(
    LoginRequest,
    () => 'invalid_request',
    async ({ email, password }, req, res) => {
      const account = await signIn
        .signIn(email, password, clientAddress(req), async (signedIn) => {
          // A new id for the signed-in session: whatever id the browser came with (planted or old) is destroyed.
          await promisify((done) => req.session.regenerate(done));
          req.session.accountId = signedIn.id;
          await promisify((done) => req.session.save(done));
        })
        .catch((err: unknown) => {
          // A shared login throttle that cannot be reached: refused, never let through uncounted.
          if (err instanceof RateLimitUnavailableError) {
            throw new AppError('rate_limit_unavailable', undefined, {
              'Retry-After': String(RATE_LIMIT_UNAVAILABLE_RETRY_SECONDS),
            });
          }
          // Password checks are all taken (a flood): refused before the attempt was counted, to be tried again.
          if (err instanceof HashingBusyError) {
            throw new AppError('server_busy', undefined, { 'Retry-After': String(err.retryAfterSeconds) });
          }
          if (!(err instanceof SignInError)) throw err;
          throw err.code === 'rate_limited'
            ? new AppError('rate_limited', undefined, { 'Retry-After': String(err.retryAfterSeconds) })
            : new AppError('invalid_credentials');
        });
      res.json({ success: true, data: await sessionView(req, account) });
    },
  );

  const logout: RequestHandler = async (req, res) => {
    await signIn.signOut(sessionAccount(req, accounts), clientAddress(req), async () => {
      if (req.session) await promisify((done) => req.session.destroy(done));
    });
    clearSessionCookie(req, res);
    res.json({ success: true, data: SIGNED_OUT });
  };

  const current: RequestHandler = async (req, res) => {
    const account = sessionAccount(req, accounts);
    res.json({ success: true, data: account ? await sessionView(req, account) : SIGNED_OUT });
  };

  const router = Router();
  router.post('/login', jsonBody, login);
  router.post('/logout', logout);
  router.get('/session', current);
  return router;
}
