import { AUTH_ENDPOINTS, type SessionData } from '../../shared/api/auth';
import type { AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { errorResponse, NO_AUTH, OPTIONAL_SESSION_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { sessionMember } from '../sessions/require-session';
import { clearSessionCookie } from '../sessions/session-cookie';
import type { SessionStore } from '../sessions/session-store';
import '../sessions/session-types';
import { promisify, SIGNED_OUT, sessionViewer, signInSessionOf } from './session-view';
import type { SignInService } from './sign-in';

export interface AuthRoutesDeps {
  signIn: SignInService;
  accounts: AccountService;
  sessions: SessionStore;
  clock: () => Date;
  idleTimeoutMs: number;
}

interface AuthContext extends AuthRoutesDeps {
  sessionView: ReturnType<typeof sessionViewer>;
}

/**
 * POST /login, POST /logout, GET /session: sign-in with email and password, sign-out, and who is signed in. Runs
 * behind the cookie session, so its endpoints answer `Cache-Control: no-store`, and POSTs carrying the cookie must come
 * from the server's own origin or an allowed extension origin (EXTENSION_ORIGINS), else 403 forbidden_origin. On
 * sign-in the session id is regenerated (no fixation) and the session holds the account id only; the rules of sign-in
 * (throttling, equal cost of unknown emails) are SignInService's.
 */
export function authRoutes(deps: AuthRoutesDeps): Route[] {
  const context = { ...deps, sessionView: sessionViewer(deps) };
  return [loginRoute(context), logoutRoute(context), sessionRoute(context)];
}

function loginRoute({ signIn, accounts, sessionView }: AuthContext): Route {
  return defineRoute({
    endpoint: AUTH_ENDPOINTS.login,
    summary: 'Sign in; sets the session cookie',
    description:
      'Sets `dte.sid` (httpOnly, SameSite=Lax, Path=/api/v1, Secure over HTTPS) with a new session id. Sessions end after 30 idle minutes or 12 hours (SESSION_IDLE_MINUTES, SESSION_ABSOLUTE_HOURS). Failed attempts are limited per email (5) and per client address (20) in 15 minutes; while limited, even the right password gets 429 with Retry-After.',
    security: NO_AUTH,
    ok: 'Signed in',
    responses: {
      400: errorResponse('Invalid request body or JSON'),
      401: errorResponse('Invalid email or password (the same answer for an unknown email)'),
      403: errorResponse('Request origin is not allowed (a session cookie sent from another site)'),
      413: errorResponse('Request body over 10 kB'),
      415: errorResponse('Content-Type is not application/json'),
      429: errorResponse('Too many failed attempts; wait Retry-After seconds'),
    },
    handle: async ({ body: { email, password } }, req, res) => {
      const account = await signIn.signIn(email, password, clientAddress(req), signInSessionOf(req));
      const member = accounts.membershipOf(account.id);
      if (!member) throw new ContractError('invalid_credentials');
      res.json({ success: true, data: (await sessionView(req, { account, member })) satisfies SessionData });
    },
  });
}

function logoutRoute({ signIn, accounts }: AuthContext): Route {
  return defineRoute({
    endpoint: AUTH_ENDPOINTS.logout,
    summary: 'Sign out',
    description: 'Ends the session the cookie names, if any; answers the same when signed out.',
    security: OPTIONAL_SESSION_AUTH,
    ok: 'Signed out',
    responses: { 403: errorResponse('Request origin is not allowed') },
    handle: async (_input, req, res) => {
      await signIn.signOut(sessionMember(req, accounts)?.account, clientAddress(req), async () => {
        if (req.session) await promisify((done) => req.session.destroy(done));
      });
      clearSessionCookie(req, res);
      res.json({ success: true, data: SIGNED_OUT });
    },
  });
}

function sessionRoute({ accounts, sessionView }: AuthContext): Route {
  return defineRoute({
    endpoint: AUTH_ENDPOINTS.session,
    summary: 'The current session',
    security: OPTIONAL_SESSION_AUTH,
    ok: 'Who is signed in, if anyone',
    handle: async (_input, req, res) => {
      const signedIn = sessionMember(req, accounts);
      res.json({ success: true, data: signedIn ? await sessionView(req, signedIn) : SIGNED_OUT });
    },
  });
}
