import { Router, type Request, type RequestHandler } from 'express';
import { LoginRequest, type SessionData } from '../../shared/api/auth';
import type { AccountService } from '../accounts/account-service';
import type { Account } from '../accounts/account-store';
import { dummyPasswordHash, verifyPassword } from '../accounts/passwords';
import { recordOrLog } from '../audit/audit-log';
import { AppError } from '../http/app-error';
import { jsonBody } from '../http/json-body';
import { validateBody } from '../http/validate-request';
import type { AuthRuntime } from './auth-runtime';
import { clientAddress } from '../http/client-address';
import { sessionAccount } from './require-session';
import { clearSessionCookie } from './session-cookie';
import './session-types';

const SIGNED_OUT: SessionData = { authenticated: false, account: null, expires_at: null };

function promisify(run: (done: (err?: unknown) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((err) => (err ? reject(err) : resolve())));
}

function sessionView(req: Request, runtime: AuthRuntime, account: Account): SessionData {
  const expires = runtime.sessions.expiresAt(req.sessionID);
  return {
    authenticated: true,
    account: { id: account.id, email: account.email },
    // Right after sign-in the session is not stored yet: its idle deadline starts now.
    expires_at: (expires ?? new Date(runtime.clock().getTime() + runtime.idleTimeoutMs)).toISOString(),
  };
}

/**
 * POST /auth/login, POST /auth/logout, GET /auth/session (SPEC Part B §9). Runs behind the session middleware.
 *
 * Login: throttled per email and per address before any password work; a wrong password and an unknown email both
 * cost one scrypt verification (against a stand-in hash for unknown emails) and give the same 401. On success the
 * session id is regenerated (no fixation) and the session holds the account id only.
 */
export function authRouter(deps: { runtime: AuthRuntime; accounts: AccountService }): Router {
  const { runtime, accounts } = deps;
  const { throttle } = runtime;
  const record = recordOrLog(runtime.audit, runtime.logger);

  const login: RequestHandler = async (req, res) => {
    const { email, password } = res.locals.body as LoginRequest;
    const ip = clientAddress(req);
    const gate = throttle.begin(email, ip);
    if (!gate.ok) throw new AppError('rate_limited', undefined, { 'Retry-After': String(gate.retryAfterSeconds) });

    const account = accounts.findByEmail(email);
    let verified: boolean;
    try {
      verified = await verifyPassword(password, account?.password_hash ?? (await dummyPasswordHash()));
    } catch (err) {
      gate.attempt.failed();
      throw err;
    }
    if (!account || !verified) {
      gate.attempt.failed();
      await record({ event: 'login_failed', source: 'web', account_id: account?.id ?? null, email, ip, reason: 'invalid_credentials' });
      throw new AppError('invalid_credentials');
    }
    gate.attempt.succeeded();

    // A new id for the signed-in session: whatever id the browser came with (planted or old) is destroyed.
    await promisify((done) => req.session.regenerate(done));
    req.session.accountId = account.id;
    await promisify((done) => req.session.save(done));
    await record({ event: 'login', source: 'web', account_id: account.id, email: account.email, ip });
    res.json({ success: true, data: sessionView(req, runtime, account) });
  };

  const logout: RequestHandler = async (req, res) => {
    const account = sessionAccount(req, accounts);
    if (req.session) {
      await promisify((done) => req.session.destroy(done));
    }
    if (account) await record({ event: 'logout', source: 'web', account_id: account.id, email: account.email, ip: clientAddress(req) });
    clearSessionCookie(req, res);
    res.json({ success: true, data: SIGNED_OUT });
  };

  const current: RequestHandler = (req, res) => {
    const account = sessionAccount(req, accounts);
    res.json({ success: true, data: account ? sessionView(req, runtime, account) : SIGNED_OUT });
  };

  const router = Router();
  router.post('/auth/login', jsonBody, validateBody(LoginRequest, () => 'invalid_request'), login);
  router.post('/auth/logout', logout);
  router.get('/auth/session', current);
  return router;
}
