import type { Request } from 'express';
import type { SessionData } from '../../shared/api/auth';
import type { AccountService } from '../accounts/account-service';
import type { SignedIn } from '../sessions/require-session';
import type { SessionStore } from '../sessions/session-store';
import type { SignInSession } from './sign-in';
import '../sessions/session-types';

export interface SessionViewDeps {
  accounts: AccountService;
  sessions: SessionStore;
  clock: () => Date;
  idleTimeoutMs: number;
}

export const SIGNED_OUT: SessionData = { authenticated: false, account: null, organisation: null, expires_at: null };

export function promisify(run: (done: (err?: unknown) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((err) => (err ? reject(err) : resolve())));
}

/**
 * Signs `accountId` in on this request as POST /api/v1/auth/login does: a new session id (whatever id the browser
 * came with, planted or old, is destroyed), holding the account id only, stored before the answer. A save that fails
 * takes the account id back out: express-session saves a changed session again as the answer ends, and a store back
 * by then would sign the browser in after all — with the sign-in refused and never audited.
 */
export async function startSession(req: Request, accountId: string): Promise<void> {
  await promisify((done) => req.session.regenerate(done));
  req.session.accountId = accountId;
  try {
    await promisify((done) => req.session.save(done));
  } catch (err) {
    delete req.session.accountId;
    throw err;
  }
}

/** What a sign-in (password or single sign-on) starts and ends on this request: the cookie session. */
export function signInSessionOf(req: Request): SignInSession {
  return {
    start: (account) => startSession(req, account.id),
    end: () => promisify((done) => req.session.destroy(done)),
  };
}

/** GET /api/v1/auth/session's answer for a signed-in person: what sign-in, invitations and resets answer too. */
export function sessionViewer(deps: SessionViewDeps) {
  const { accounts, sessions, clock, idleTimeoutMs } = deps;
  return async (req: Request, { account, member }: SignedIn): Promise<SessionData> => {
    const expires = await sessions.expiresAt(req.sessionID);
    const organisation = accounts.organisation(member.organisation_id);
    return {
      authenticated: true,
      account: { id: account.id, email: account.email, email_verified: account.email_verified_at !== null },
      organisation: organisation ? { id: organisation.id, name: organisation.name, role: member.role } : null,
      // Right after sign-in the session is not stored yet: its idle deadline starts now.
      expires_at: (expires ?? new Date(clock().getTime() + idleTimeoutMs)).toISOString(),
    };
  };
}
