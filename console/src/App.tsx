import { useCallback, useEffect, useState } from 'react';
import { useAccount, type Account } from '../../ui/account/useAccount';
import { ApiProvider } from '../../ui/api/api-client';
import { consoleApi } from './console-api';
import { Layout } from './Layout';
import { InvitationPage } from './link-pages/InvitationPage';
import { ResetPasswordPage } from './link-pages/ResetPasswordPage';
import { VerifyEmailPage } from './link-pages/VerifyEmailPage';
import { landingRoute, pageFor } from './pages';
import { navigate, useRoute } from './router';
import { useSessionWatch } from './session-watch';
import { SignInPage } from './SignInPage';
import { SignupPage } from './signup/SignupPage';

/** The pages a link opens, shown signed in or not. */
const LINK_ROUTES = ['invitation', 'reset-password', 'verify-email', 'signup'];

/** The session of this origin: the console is served by the server it manages. */
const SAME_ORIGIN = 'same-origin';

/** Told by the API client when an answer says the console's picture of the session is out of date. */
const sessionChanged = new EventTarget();
const api = consoleApi({
  ended: () => sessionChanged.dispatchEvent(new Event('changed')),
  roleRefused: () => sessionChanged.dispatchEvent(new Event('changed')),
});

/**
 * Whether the session ended without this page's Sign out (timed out, signed out elsewhere, removed from the team):
 * the sign-in page then says so, rather than appearing for no visible reason.
 */
function useEndedUnasked(signedInAs: string | null) {
  const [ended, setEnded] = useState(false);
  const [previous, setPrevious] = useState(signedInAs);
  const [asked, setAsked] = useState(false);
  // Worked out while rendering the change, so the sign-in page shows with its reason in the same frame.
  if (previous !== signedInAs) {
    setPrevious(signedInAs);
    setEnded(previous !== null && signedInAs === null && !asked);
    if (signedInAs !== null) setAsked(false);
  }
  const signingOut = useCallback(() => setAsked(true), []);
  return { ended, signingOut };
}

/**
 * The route to show: the address's, except on arrival at the console's root (signed in, a reload, back from an
 * invitation link), which is the person's landing page (landingRoute); the address then follows. Moving to the
 * Overview later is the person's choice and is kept.
 */
function useLanding(route: string, account: Account, showsPages: boolean): string {
  const [shown, setShown] = useState(false);
  const [landing, setLanding] = useState<string | null>(null);
  // Worked out while rendering, so the landing page is the first one drawn (no flash of the Overview).
  if (shown !== showsPages) {
    setShown(showsPages);
    const to = landingRoute(account);
    setLanding(showsPages && route === '' && to !== '' ? to : null);
  }
  // Landed: the address says where the person is, and is followed from now on.
  if (landing !== null && route === landing) setLanding(null);
  useEffect(() => {
    if (landing !== null) navigate(landing, { replace: true });
  }, [landing]);
  return landing ?? route;
}

function Console() {
  const account = useAccount(SAME_ORIGIN);
  const route = useRoute();
  const { loadSession, signedInAs } = account;
  const reread = useCallback(() => void loadSession(), [loadSession]);
  // An answer `unauthenticated` or `forbidden_role` (the role changed meanwhile): read the session again, which shows
  // the sign-in page once it has ended and only what the new role allows otherwise.
  useEffect(() => {
    sessionChanged.addEventListener('changed', reread);
    return () => sessionChanged.removeEventListener('changed', reread);
  }, [reread]);
  useSessionWatch(signedInAs !== null, reread);
  const { ended, signingOut } = useEndedUnasked(signedInAs);
  // Said on the sign-in page after a password reset that did not sign the person in itself.
  const [resetDone, setResetDone] = useState(false);
  const linkPage = LINK_ROUTES.includes(route);
  const shownRoute = useLanding(route, account, account.sessionRead && signedInAs !== null && !linkPage);

  // The pages a link opens work signed in or not: they sign the person in (or out of whoever was) themselves.
  const landSignedIn = async () => {
    await loadSession();
    navigate('', { replace: true });
  };
  if (route === 'invitation') return <InvitationPage onAccepted={landSignedIn} />;
  if (route === 'reset-password') {
    const onReset = async () => {
      setResetDone(true);
      await landSignedIn();
    };
    return <ResetPasswordPage onReset={onReset} />;
  }
  if (route === 'verify-email') return <VerifyEmailPage />;
  if (route === 'signup') {
    // Signed in as the new owner: Billing to subscribe, or the Overview, which says the operator activates it.
    const onSignedUp = async ({ billing }: { billing: 'stripe' | 'operator' }) => {
      await loadSession();
      navigate(billing === 'stripe' ? 'billing' : '', { replace: true });
    };
    return <SignupPage onSignedUp={onSignedUp} />;
  }

  if (!account.sessionRead) {
    return (
      <main id="main" className="sign-in" aria-busy="true">
        <p className="hint">Loading…</p>
      </main>
    );
  }
  if (!signedInAs) {
    return (
      <SignInPage account={account} ended={ended} passwordReset={resetDone} forgot={route === 'forgot-password'} />
    );
  }
  const page = pageFor(shownRoute, account);
  return (
    <Layout account={account} page={page} onSignOut={signingOut}>
      {page.render(account)}
    </Layout>
  );
}

export function App() {
  return (
    <ApiProvider value={api}>
      <Console />
    </ApiProvider>
  );
}
