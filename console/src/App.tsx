import { useEffect } from 'react';
import { useAccount } from '../../ui/account/useAccount';
import { ApiProvider } from '../../ui/api/api-client';
import { consoleApi } from './console-api';
import { Layout } from './Layout';
import { pageFor } from './pages';
import { useRoute } from './router';
import { SignInPage } from './SignInPage';

/** The session of this origin: the console is served by the server it manages. */
const SAME_ORIGIN = 'same-origin';

/** Told by the API client when a call finds the session ended. */
const sessionEnded = new EventTarget();
const api = consoleApi(() => sessionEnded.dispatchEvent(new Event('ended')));

function Console() {
  const account = useAccount(SAME_ORIGIN);
  const page = pageFor(useRoute());
  const { loadSession } = account;
  // Any call answered `unauthenticated` (idle timeout, signed out elsewhere): read the session again, which shows
  // the sign-in page once it has ended.
  useEffect(() => {
    const reread = () => void loadSession();
    sessionEnded.addEventListener('ended', reread);
    return () => sessionEnded.removeEventListener('ended', reread);
  }, [loadSession]);

  if (!account.sessionRead) {
    return (
      <main id="main" className="sign-in" aria-busy="true">
        <p className="hint">Loading…</p>
      </main>
    );
  }
  if (!account.signedInAs) return <SignInPage account={account} />;
  return (
    <Layout account={account} page={page}>
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
