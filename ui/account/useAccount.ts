import { useCallback, useEffect, useState } from 'react';
import type { KeyStatusData } from '../../shared/api/keys';
import { useApi } from '../api/api-client';
import type { Notice } from '../common/NoticeLine';

export type Account = ReturnType<typeof useAccount>;

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

/**
 * The clinic's session and its subscription and key status. One action at a time: `busy` is set while sign-in,
 * sign-out or a key action is under way. `connection` names the server the session is on (the options page's saved
 * URL; the console's own origin): when it changes the page starts signed out until that server's session is read, and
 * an empty one reads nothing.
 */
export function useAccount(connection: string) {
  const api = useApi();
  const [signedInAs, setSignedInAs] = useState<string | null>(null);
  const [status, setStatus] = useState<KeyStatusData | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  /** The first read of the session has answered: until then the page knows neither way. */
  const [sessionRead, setSessionRead] = useState(false);
  const { busy, whileBusy } = useWhileBusy();

  const signedOut = useCallback(() => {
    setSignedInAs(null);
    setStatus(null);
  }, []);

  const loadStatus = useCallback(async () => {
    const result = await api.keyStatus();
    if (result.ok) {
      setStatus(result.data);
    } else if (result.code === 'unauthenticated') {
      signedOut();
    } else {
      setNotice({ kind: 'error', text: api.describe(result) });
    }
  }, [api, signedOut]);

  const loadSession = useCallback(async () => {
    const result = await api.session();
    if (result.ok && result.data.authenticated && result.data.account) {
      setSignedInAs(result.data.account.email);
      await loadStatus();
    } else {
      signedOut();
    }
    setSessionRead(true);
  }, [api, loadStatus, signedOut]);

  // The session shown is the saved server's: another server starts signed out until its session is read.
  useEffect(() => {
    // Synchronously, so the previous server's account never shows against the new URL, even for one frame; the
    // session read that follows is the external system this effect syncs with.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    signedOut();
    if (connection) void loadSession().catch(() => setSessionRead(true));
  }, [connection, loadSession, signedOut]);

  const signIn = async (email: string, password: string) => {
    setNotice(null);
    if (!email.trim() || !password) {
      setNotice({ kind: 'error', text: 'Enter your email and password.' });
      return;
    }
    await whileBusy(async () => {
      const result = await api.login({ email: email.trim(), password });
      if (!result.ok) {
        setNotice({ kind: 'error', text: api.describe(result) });
        return;
      }
      if (!result.data.authenticated || !result.data.account) {
        setNotice({ kind: 'error', text: NO_SESSION_COOKIE });
        return;
      }
      setSignedInAs(result.data.account.email);
      await loadStatus();
    });
  };

  const signOut = () =>
    whileBusy(async () => {
      await api.logout();
      signedOut();
    });

  return { signedInAs, status, busy, notice, sessionRead, loadSession, loadStatus, whileBusy, signIn, signOut };
}
