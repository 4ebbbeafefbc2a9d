import { useState, type ChangeEvent } from 'react';
import { EMAIL_SHAPE, MIN_PASSWORD_LENGTH } from '../../../shared/api/auth';
import type { SignupAcceptedData, SignupSettingsData } from '../../../shared/api/signup';
import type { AccountFailure } from '../../../ui/api/account-result';
import { NoticeLine, type Notice } from '../../../ui/common/NoticeLine';
import { PublicPage } from '../PublicPage';
import { Link } from '../router';
import { useConsoleApi } from '../use-load';
import { useSignupSettings } from './use-signup-settings';

const MAX_PRACTICE_NAME = 120;

const SWITCHED_OFF =
  'Sign-up is switched off on this server: ask the service’s operator for an account, or an owner of your ' +
  'practice’s team for an invitation.';

/** The refusals a person can act on, in words; anything else as the server or the client says it. */
function refusalWords(failure: AccountFailure, describe: (f: AccountFailure) => string): string {
  switch (failure.code) {
    case 'signup_disabled':
      return SWITCHED_OFF;
    case 'weak_password':
      return `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
    case 'invalid_request':
      return `Check the practice name (up to ${MAX_PRACTICE_NAME} characters) and the email address.`;
    case 'rate_limited':
      return 'Too many sign-ups from this network just now. Wait a few minutes, then try again.';
    default:
      return describe(failure);
  }
}

/** What is wrong with the form before anything is sent, or null. */
function formProblem(name: string, email: string, password: string): string | null {
  if (!name.trim()) return 'Enter the practice’s name.';
  if (name.trim().length > MAX_PRACTICE_NAME) return `The practice name is at most ${MAX_PRACTICE_NAME} characters.`;
  if (!EMAIL_SHAPE.test(email.trim())) return 'Enter the email address you will sign in with.';
  if (password.length < MIN_PASSWORD_LENGTH) return `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
  return null;
}

function Field({
  id,
  label,
  hint,
  ...input
}: {
  id: string;
  label: string;
  hint?: string;
  type: string;
  autoComplete: string;
  value: string;
  onChange(e: ChangeEvent<HTMLInputElement>): void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
    </div>
  );
}

function SignupForm({ busy, notice, onSubmit }: { busy: boolean; notice: Notice; onSubmit(r: Submitted): void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = () => {
    const found = formProblem(name, email, password);
    setProblem(found);
    if (!found) onSubmit({ practice_name: name.trim(), email: email.trim(), password });
  };
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      noValidate
    >
      <Field
        id="signup-practice"
        label="Practice name"
        type="text"
        autoComplete="organization"
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <Field
        id="signup-email"
        label="Email"
        hint="You sign in with it, as the practice’s owner."
        type="email"
        autoComplete="username"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <Field
        id="signup-password"
        label="Password"
        hint={`At least ${MIN_PASSWORD_LENGTH} characters; a few words you will remember make a good one.`}
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <button type="submit" disabled={busy}>
        Create account
      </button>
      <NoticeLine notice={problem ? { kind: 'error', text: problem } : notice} />
    </form>
  );
}

type Submitted = { practice_name: string; email: string; password: string };

/** Said when "Sign in now" did not: the address had an account already, with its own password. */
const NOT_SIGNED_IN =
  'That did not sign you in. If this address already had an account, sign in with that account’s password, or reset it.';

/**
 * The answer to every sign-up, the same words whether or not the address had an account (the server signs nobody in
 * and answers alike, so the page tells nobody which addresses have accounts): what happens next, and signing in with
 * the password just typed, which works for a new account.
 */
function SignedUp({
  accepted,
  password,
  onSignedIn,
}: {
  accepted: SignupAcceptedData;
  password: string;
  onSignedIn(): Promise<void>;
}) {
  const api = useConsoleApi();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const email = <strong>{accepted.email}</strong>;
  const signIn = async () => {
    setBusy(true);
    setNotice(null);
    const answer = await api.login({ email: accepted.email, password });
    if (answer.ok && answer.data.authenticated) {
      await onSignedIn();
      return;
    }
    setBusy(false);
    const refused = !answer.ok && answer.code !== 'invalid_credentials';
    setNotice({ kind: 'error', text: refused ? api.describe(answer) : NOT_SIGNED_IN });
  };
  return (
    <PublicPage title="Next: sign in" focusHeading>
      <p data-testid="signup-check">
        {accepted.verification === 'sent' ? (
          <>
            We have sent a message to {email}. For a new account it holds a link to confirm the address; if the address
            already had an account, it says how to sign in or reset the password.
          </>
        ) : (
          <>If {email} is new here, your practice’s account is ready.</>
        )}{' '}
        Sign in with the password you just chose.
      </p>
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => void signIn()}>
          Sign in now
        </button>
      </div>
      <NoticeLine notice={notice} />
      <ul>
        <li>
          <Link to="">Sign in another way</Link>
        </li>
        <li>
          <Link to="forgot-password">Reset your password</Link>
        </li>
      </ul>
    </PublicPage>
  );
}

/**
 * /console/signup: a practice creates its organisation and its owner's account. Nobody is signed in by it: the next
 * page signs the owner in with the password just chosen; `onSignedUp` then opens the console (Billing, to subscribe,
 * or the Overview where the operator activates it).
 */
export function SignupPage({ onSignedUp }: { onSignedUp(settings: SignupSettingsData): Promise<void> }) {
  const api = useConsoleApi();
  const settings = useSignupSettings();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const [accepted, setAccepted] = useState<{
    answer: SignupAcceptedData;
    password: string;
    mode: SignupSettingsData;
  } | null>(null);

  const signUp = async (request: Submitted, mode: SignupSettingsData) => {
    setBusy(true);
    setNotice(null);
    const answer = await api.signup(request);
    setBusy(false);
    if (!answer.ok) {
      setNotice({ kind: 'error', text: refusalWords(answer, api.describe) });
      return;
    }
    setAccepted({ answer: answer.data, password: request.password, mode });
  };

  if (accepted) {
    return (
      <SignedUp accepted={accepted.answer} password={accepted.password} onSignedIn={() => onSignedUp(accepted.mode)} />
    );
  }
  let body;
  if (!settings) {
    body = <p className="hint">Loading…</p>;
  } else if (!settings.ok) {
    body = (
      <p className="notice error" role="alert">
        {api.describe(settings)}
      </p>
    );
  } else if (!settings.data.enabled) {
    body = (
      <p className="notice error" data-testid="signup-disabled">
        {SWITCHED_OFF}
      </p>
    );
  } else {
    const mode = settings.data;
    body = (
      <>
        <p className="hint">
          {mode.billing === 'stripe'
            ? 'Create your practice’s account, then subscribe by card to start checking postcodes.'
            : 'Create your practice’s account; the service’s operator then activates its subscription.'}
        </p>
        <SignupForm busy={busy} notice={notice} onSubmit={(request) => void signUp(request, mode)} />
      </>
    );
  }
  return (
    <PublicPage title="Create an account" focusHeading>
      {body}
      <p>
        Already have an account? <Link to="">Sign in</Link>
      </p>
    </PublicPage>
  );
}
