import { useCallback, useEffect, useState } from 'react';
import type { SessionData } from '../../shared/api/auth';
import type { KeyStatusData } from '../../shared/api/keys';
import { canManage } from '../../shared/api/team';
import type { AccountFailure } from '../api/account-result';
import { useApi } from '../api/api-client';
import type { Notice } from '../common/NoticeLine';

export type Account = ReturnType<typeof useAccount>;

/** The signed-in member's organisation and role (null from a server older than organisations). */
export type Membership = NonNullable<SessionData['organisation']>;

const NO_SESSION_COOKIE =
  'The server accepted the sign-in but the browser did not send the session cookie back. Check that the Server URL matches the address the server is reached at.';

/** Runs one account action at a time, with the account's buttons disabled (`busy`) meanwhile. */
function useWhileBusy() {
  const [busy, setBusy] = useState(false);
  const whileBusy = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, whileBusy };
}

/** The line under the account's forms, and its clearing (the sign-in form's steps start without it). */
function useNotice() {
  const [notice, setNotice] = useState<Notice>(null);
  const clearNotice = useCallback(() => setNotice(null), []);
  return { notice, setNotice, clearNotice };
}

/** Who is signed in, as the session said: their email and account id, their organisation and role. */
function useIdentity() {
  const [signedInAs, setSignedInAs] = useState<string | null>(null);
  const [accountId, setAccountId] = useState<string | null>(null);
  const [membership, setMembership] = useState<Membership | null>(null);
  const signedIn = useCallback((session: SessionData) => {
    setSignedInAs(session.account?.email ?? null);
    setAccountId(session.account?.id ?? null);
    setMembership(session.organisation ?? null);
  }, []);
  const clearIdentity = useCallback(() => {
    setSignedInAs(null);
    setAccountId(null);
    setMembership(null);
  }, []);
  // A server that does not say the role (older than organisations) lets the one account manage everything.
  const manages = membership === null || canManage(membership.role);
  return { who: { signedInAs, accountId, membership, manages }, signedIn, clearIdentity };
}

/**
 * The clinic's session and its subscription and key status. One action at a time: `busy` is set while sign-in,
 * sign-out or a key action is under way. `connection` names the server the session is on (the options page's saved
 * URL; the console's own origin): when it changes the page starts signed out until that server's session is read, and
 * an empty one reads nothing.
 */
export function useAccount(connection: string) {
  const api = useApi();
  const { who, signedIn, clearIdentity } = useIdentity();
  const [status, setStatus] = useState<KeyStatusData | null>(null);
  const { setNotice, ...notices } = useNotice();
  /** The first read of the session has answered: until then the page knows neither way. */
  const [sessionRead, setSessionRead] = useState(false);
  const { busy, whileBusy } = useWhileBusy();

  const signedOut = useCallback(() => {
    clearIdentity();
    setStatus(null);
  }, [clearIdentity]);

  const loadStatus = useCallback(async () => {
    const result = await api.keyStatus();
    if (result.ok) {
      setStatus(result.data);
    } else if (result.code === 'unauthenticated') {
      signedOut();
    } else {
      setNotice({ kind: 'error', text: api.describe(result) });
    }
  }, [api, setNotice, signedOut]);

  const loadSession = useCallback(async () => {
    const result = await api.session();
    if (result.ok && result.data.authenticated && result.data.account) {
      signedIn(result.data);
      await loadStatus();
    } else {
      signedOut();
    }
    setSessionRead(true);
  }, [api, loadStatus, signedIn, signedOut]);

  // The session shown is the saved server's: another server starts signed out until its session is read.
  useEffect(() => {
    // Synchronously, so the previous server's account never shows against the new URL, even for one frame; the
    // session read that follows is the external system this effect syncs with.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    signedOut();
    if (connection) void loadSession().catch(() => setSessionRead(true));
  }, [connection, loadSession, signedOut]);

  // The server's refusal is said in `notice`, and answered: the form acts on some (sso_required).
  const signIn = async (email: string, password: string): Promise<AccountFailure | null> => {
    setNotice(null);
    if (!email.trim() || !password) {
      setNotice({ kind: 'error', text: 'Enter your email and password.' });
      return null;
    }
    let refused: AccountFailure | null = null;
    await whileBusy(async () => {
      const result = await api.login({ email: email.trim(), password });
      if (!result.ok) {
        refused = result;
        setNotice({ kind: 'error', text: api.describe(result) });
        return;
      }
      if (!result.data.authenticated || !result.data.account) {
        setNotice({ kind: 'error', text: NO_SESSION_COOKIE });
        return;
      }
      signedIn(result.data);
      await loadStatus();
    });
    return refused;
  };

  const signOut = () =>
    whileBusy(async () => {
      await api.logout();
      signedOut();
    });

  return { ...who, ...notices, status, busy, sessionRead, loadSession, loadStatus, whileBusy, signIn, signOut };
}
