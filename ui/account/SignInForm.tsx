import { useState } from 'react';
import { NoticeLine } from '../common/NoticeLine';
import type { Account } from './useAccount';

/**
 * Email and password, for a clinic that is not signed in. `serverSaved` false (the options page before a Server URL
 * is saved) holds the form back and says why.
 */
export function SignInForm({ account, serverSaved = true }: { account: Account; serverSaved?: boolean }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void account.signIn(email, password);
      }}
      noValidate
    >
      {!serverSaved && <p className="hint">Save the Server URL before signing in.</p>}
      <div className="field">
        <label htmlFor="email">Email</label>
        <input
          id="email"
          type="email"
          autoComplete="username"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </div>
      <button type="submit" disabled={account.busy || !serverSaved}>
        Sign in
      </button>
      <NoticeLine notice={account.notice} />
    </form>
  );
}
