import { rethrowBusy } from './busy-refusal';
import { Router, type RequestHandler } from 'express';
import { LoginRequest, SessionData } from '../../shared/api/auth';
import { successEnvelope } from '../../shared/api/envelope';
import type { AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { jsonBody } from '../http/json-body';
import {
  errorResponse,
  jsonRequestBody,
  jsonResponse,
  NO_AUTH,
  OPTIONAL_SESSION_AUTH,
  type ApiRegistry,
} from '../http/openapi-registry';
import { withValidBody } from '../http/validate-request';
import { sessionMember } from '../sessions/require-session';
import { clearSessionCookie } from '../sessions/session-cookie';
import type { SessionStore } from '../sessions/session-store';
import '../sessions/session-types';
import { promisify, SIGNED_OUT, sessionViewer, startSession } from './session-view';
import { SignInError, type SignInService } from './sign-in';

export interface AuthRouterDeps {
  signIn: SignInService;
  accounts: AccountService;
  sessions: SessionStore;
  clock: () => Date;
  idleTimeoutMs: number;
}

/**
 * POST /login, POST /logout, GET /session: sign-in with email and password, sign-out, and who is signed in. Runs
 * behind the cookie session (cookieSession). On sign-in the session id is regenerated (no fixation) and the session
 * holds the account id only; the rules of sign-in (throttling, equal cost of unknown emails) are SignInService's.
 */
export function authRouter(deps: AuthRouterDeps): Router {
  const { signIn, accounts } = deps;
  const sessionView = sessionViewer(deps);

  const login = withValidBody(
    LoginRequest,
    () => 'invalid_request',
    async ({ email, password }, req, res) => {
      const account = await signIn
        .signIn(email, password, clientAddress(req), {
          start: (signedIn) => startSession(req, signedIn.id),
          end: () => promisify((done) => req.session.destroy(done)),
        })
        .catch((err: unknown) => {
          if (!(err instanceof SignInError)) rethrowBusy(err);
          throw err.code === 'rate_limited'
            ? new ContractError('rate_limited', { retryAfterSeconds: err.retryAfterSeconds })
            : new ContractError('invalid_credentials');
        });
      const member = accounts.membershipOf(account.id);
      if (!member) throw new ContractError('invalid_credentials');
      res.json({ success: true, data: await sessionView(req, { account, member }) });
    },
  );

  const logout: RequestHandler = async (req, res) => {
    await signIn.signOut(sessionMember(req, accounts)?.account, clientAddress(req), async () => {
      if (req.session) await promisify((done) => req.session.destroy(done));
    });
    clearSessionCookie(req, res);
    res.json({ success: true, data: SIGNED_OUT });
  };

  const current: RequestHandler = async (req, res) => {
    const signedIn = sessionMember(req, accounts);
    res.json({ success: true, data: signedIn ? await sessionView(req, signedIn) : SIGNED_OUT });
  };

  const router = Router();
  router.post('/login', jsonBody, login);
  router.post('/logout', logout);
  router.get('/session', current);
  return router;
}

/**
 * Sign-in, sign-out and the session in the OpenAPI document. The session-cookie endpoints answer `Cache-Control:
 * no-store`; POSTs carrying the cookie must come from the server's own origin or an allowed extension origin
 * (EXTENSION_ORIGINS), else 403 forbidden_origin.
 */
export function registerAuthPaths(registry: ApiRegistry): void {
  const session = (description: string) => jsonResponse(successEnvelope(SessionData), description);
  registry.registerPath({
    method: 'post',
    path: '/api/v1/auth/login',
    summary: 'Sign in; sets the session cookie',
    description:
      'Sets `dte.sid` (httpOnly, SameSite=Lax, Path=/api/v1, Secure over HTTPS) with a new session id. Sessions end after 30 idle minutes or 12 hours (SESSION_IDLE_MINUTES, SESSION_ABSOLUTE_HOURS). Failed attempts are limited per email (5) and per client address (20) in 15 minutes; while limited, even the right password gets 429 with Retry-After.',
    security: NO_AUTH,
    request: jsonRequestBody(LoginRequest),
    responses: {
      200: session('Signed in'),
      400: errorResponse('Invalid request body or JSON'),
      401: errorResponse('Invalid email or password (the same answer for an unknown email)'),
      403: errorResponse('Request origin is not allowed (a session cookie sent from another site)'),
      413: errorResponse('Request body over 10 kB'),
      415: errorResponse('Content-Type is not application/json'),
      429: errorResponse('Too many failed attempts; wait Retry-After seconds'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/auth/logout',
    summary: 'Sign out',
    description: 'Ends the session the cookie names, if any; answers the same when signed out.',
    security: OPTIONAL_SESSION_AUTH,
    responses: { 200: session('Signed out'), 403: errorResponse('Request origin is not allowed') },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/auth/session',
    summary: 'The current session',
    security: OPTIONAL_SESSION_AUTH,
    responses: { 200: session('Who is signed in, if anyone') },
  });
}
