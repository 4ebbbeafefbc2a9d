import { useLayoutEffect, useState } from 'react';
import { EMAIL_SHAPE } from '../../shared/api/auth';
import type { SsoDiscovery } from '../../shared/api/sso';
import { useApi } from '../api/api-client';
import { NoticeLine, type Notice } from '../common/NoticeLine';
import { continueWith } from '../api/sso-words';
import type { Account } from './useAccount';

export type SsoChoice = Extract<SsoDiscovery, { method: 'sso' }>;

/**
 * How a page sends a person to their organisation's sign-in: the console goes there itself, the extension's options
 * page opens it in a tab and watches the session. `status`: what the page says meanwhile.
 */
export interface SsoOpener {
  open(choice: SsoChoice): void;
  status?: Notice;
}

/**
 * The steps: the e-mail first; then its password, or the button of its organisation's single sign-on (`sso`), from
 * which a password is still offered (`password` with `sso`: the owners' break-glass, or a practice that allows both).
 */
type Step = ({ kind: 'email' } | { kind: 'password'; sso?: SsoChoice } | { kind: 'sso'; sso: SsoChoice }) & {
  /** Moved to by the person: its field or button takes focus (not on arrival, where a screen reader starts at the top). */
  moved?: boolean;
};

/** What takes focus in each step (by id: the form is one per page). */
const FOCUS_IN: Record<Step['kind'], string> = { email: 'email', password: 'password', sso: 'sso-continue' };

const ENTER_EMAIL: Notice = { kind: 'error', text: 'Enter the email address you sign in with.' };

/**
 * Sign-in for a clinic that is not signed in: the e-mail first, and "Continue", which asks the server how the address
 * signs in (GET /api/v1/auth/sso/discover); then its password, or "Continue with Microsoft" (or Google, or the
 * practice's own sign-in) when its domain is claimed for single sign-on. A server that cannot say (older, or not
 * reached) gets the password: sign-in is never held up by the question. The e-mail stays in the form, read-only, in
 * the later steps with autocomplete="username", so a password manager pairs it with the password it fills or saves.
 * `serverSaved` false (the options page before a Server URL is saved) holds the form back and says why.
 */
export function SignInForm({
  account,
  sso,
  serverSaved = true,
}: {
  account: Account;
  sso: SsoOpener;
  serverSaved?: boolean;
}) {
  const api = useApi();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [step, setStep] = useState<Step>({ kind: 'email' });
  const [asking, setAsking] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  useLayoutEffect(() => {
    if (step.moved) document.getElementById(FOCUS_IN[step.kind])?.focus();
  }, [step]);
  const goTo = (next: Step) => {
    setNotice(null);
    account.clearNotice();
    setStep({ ...next, moved: true });
  };

  const discover = async () => {
    const address = email.trim();
    if (!EMAIL_SHAPE.test(address)) {
      setNotice(ENTER_EMAIL);
      return;
    }
    setAsking(true);
    setNotice(null);
    const result = await api.discoverSignIn(address).catch(() => null);
    setAsking(false);
    goTo(result?.ok && result.data.method === 'sso' ? { kind: 'sso', sso: result.data } : { kind: 'password' });
  };

  const signIn = async () => {
    const refused = await account.signIn(email, password);
    // The organisation requires single sign-on for this member: back to its button, the reason said under it.
    if (refused?.code === 'sso_required' && step.kind === 'password' && step.sso) {
      setStep({ kind: 'sso', sso: step.sso, moved: true });
    }
  };

  const busy = asking || account.busy || !serverSaved;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (step.kind === 'email') void discover();
        else if (step.kind === 'password') void signIn();
        else sso.open(step.sso);
      }}
      noValidate
    >
      {!serverSaved && <p className="hint">Save the Server URL before signing in.</p>}
      <EmailField
        email={email}
        setEmail={setEmail}
        locked={step.kind !== 'email'}
        onChange={() => goTo({ kind: 'email' })}
      />
      {step.kind === 'email' && (
        <button type="submit" disabled={busy}>
          Continue
        </button>
      )}
      {step.kind === 'password' && <PasswordStep password={password} setPassword={setPassword} busy={busy} />}
      {step.kind === 'sso' && <SsoStep choice={step.sso} busy={busy} onPassword={goTo} />}
      <NoticeLine
        notice={
          step.kind === 'email' ? notice : (account.notice ?? (step.kind === 'sso' ? (sso.status ?? null) : null))
        }
      />
    </form>
  );
}

/**
 * "Continue with …", and the password beside it: offered to all when the organisation allows both, and otherwise
 * only to its owners (their break-glass: the server refuses anyone else's password, and says to continue with SSO).
 */
function SsoStep({ choice, busy, onPassword }: { choice: SsoChoice; busy: boolean; onPassword(step: Step): void }) {
  return (
    <>
      <p className="hint">This address signs in with {choice.label}.</p>
      <div className="actions">
        <button type="submit" id="sso-continue" disabled={busy}>
          {continueWith(choice.label)}
        </button>
      </div>
      <p>
        <button type="button" className="link-button" onClick={() => onPassword({ kind: 'password', sso: choice })}>
          {choice.password_allowed ? 'Sign in with a password instead' : 'Practice owner? Sign in with your password'}
        </button>
      </p>
    </>
  );
}

function PasswordStep(props: { password: string; setPassword(password: string): void; busy: boolean }) {
  return (
    <>
      <div className="field">
        <Field id="password" label="Password" value={props.password} onChange={props.setPassword} />
      </div>
      <button type="submit" disabled={props.busy}>
        Sign in
      </button>
    </>
  );
}

/** The e-mail: typed in the first step; kept, read-only, in the later ones, with the way back to change it. */
function EmailField(props: { email: string; setEmail(email: string): void; locked: boolean; onChange(): void }) {
  return (
    <div className="field">
      <Field id="email" label="Email" value={props.email} onChange={props.setEmail} readOnly={props.locked} />
      {props.locked && (
        <button type="button" className="link-button" onClick={props.onChange}>
          Use another e-mail
        </button>
      )}
    </div>
  );
}

/** The form's two inputs, named for password managers: the address as the username, the password as the current one. */
function Field(props: {
  id: 'email' | 'password';
  label: string;
  value: string;
  onChange(value: string): void;
  readOnly?: boolean;
}) {
  const password = props.id === 'password';
  return (
    <>
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        type={password ? 'password' : 'email'}
        autoComplete={password ? 'current-password' : 'username'}
        readOnly={props.readOnly}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </>
  );
}
