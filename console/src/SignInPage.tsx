import { useEffect } from 'react';
import { SignInForm } from '../../ui/account/SignInForm';
import type { Account } from '../../ui/account/useAccount';
import { PRODUCT } from './Layout';

/** The console signed out: the shared sign-in form, on its own page. The address asked for is kept. */
export function SignInPage({ account }: { account: Account }) {
  useEffect(() => {
    document.title = `Sign in — ${PRODUCT} console`;
  }, []);
  return (
    <>
      <header className="console-header">
        <p className="console-name">{PRODUCT}</p>
      </header>
      <main id="main" className="sign-in">
        <h1>Sign in</h1>
        <p className="hint">The practice&apos;s console: subscription, API key, catchment, alerts and webhook.</p>
        <SignInForm account={account} />
      </main>
    </>
  );
}
