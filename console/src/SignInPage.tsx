import { useLayoutEffect, useRef, useState } from 'react';
import { EMAIL_SHAPE } from '../../shared/api/auth';
import { SignInForm, type SsoOpener } from '../../ui/account/SignInForm';
import type { Account } from '../../ui/account/useAccount';
import { NoticeLine, type Notice } from '../../ui/common/NoticeLine';
import { PublicPage } from './PublicPage';
import { Link, navigate } from './router';
import { SsoRefusal, useSsoRefusal } from './sso-refusal';
import { startSso } from './sso-start';
import { OperatorHelp, operatorContactOf } from './signup/OperatorContact';
import { useSignupSettings } from './signup/use-signup-settings';
import { useConsoleApi } from './use-load';

/** Said whatever the server knows of the address, so the form never tells who has an account. */
const RESET_SENT =
  'If this email has an account, a reset link is on its way to it. No e-mail within a few minutes? Ask an owner or ' +
  'admin of your team for a reset link.';
const RESET_NO_MAIL =
  'This server sends no e-mail: ask an owner or admin of your team for a reset link. They can make one on the Team page.';

/**
 * "Forgot password?": an email, then always the same neutral answer; and, for whoever nobody on the team can help (a
 * sole owner), who runs the service (`contact`: OPERATOR_CONTACT; undefined until the server says).
 */
function ForgotPassword({ onBack, contact }: { onBack(): void; contact: string | null | undefined }) {
  const api = useConsoleApi();
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const field = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => field.current?.focus(), []);

  const send = async () => {
    const address = email.trim();
    if (!EMAIL_SHAPE.test(address)) {
      setNotice({ kind: 'error', text: 'Enter the email address you sign in with.' });
      return;
    }
    setBusy(true);
    setNotice(null);
    const result = await api.requestPasswordReset(address);
    setBusy(false);
    // The answer is the same whether or not the address has an account; so is what is said of it.
    if (result.ok) setNotice({ kind: 'ok', text: result.data.mail_enabled ? RESET_SENT : RESET_NO_MAIL });
    else setNotice({ kind: 'error', text: api.describe(result) });
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
      noValidate
    >
      <p className="hint">We send a link to set a new password to the address you sign in with.</p>
      <div className="field">
        <label htmlFor="reset-email">Email</label>
        <input
          id="reset-email"
          ref={field}
          type="email"
          autoComplete="username"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </div>
      <div className="actions">
        <button type="submit" disabled={busy}>
          Send reset link
        </button>
        <button type="button" onClick={onBack}>
          Back to sign in
        </button>
      </div>
      <NoticeLine notice={notice} />
      <OperatorHelp contact={contact} />
    </form>
  );
}

/** The console goes to the organisation's sign-in itself, and comes back to the page it was asked for. */
const CONSOLE_SSO: SsoOpener = { open: (choice) => startSso(choice.start_url) };

/**
 * The console signed out: the shared sign-in form, on its own page, and "Forgot password?". The address asked for is
 * kept. A single sign-on that came back refused (`?sso_error=`) is said first, in words. `ended`: the session ended without this page's Sign out, and the page says so; `passwordReset`: a reset link
 * set a new password; `forgot`: opened at /console/forgot-password (sign-up's "reset your password"). "Create an
 * account" only where the server offers sign-up.
 */
export function SignInPage({
  account,
  ended,
  passwordReset,
  forgot: openedForgot = false,
}: {
  account: Account;
  ended: boolean;
  passwordReset: boolean;
  forgot?: boolean;
}) {
  const [forgot, setForgot] = useState(openedForgot);
  const forgotButton = useRef<HTMLButtonElement>(null);
  const settings = useSignupSettings();
  const refusal = useSsoRefusal();
  const back = () => {
    setForgot(false);
    if (openedForgot) navigate('', { replace: true });
    // Back where the person left: the button that opened the form.
    requestAnimationFrame(() => forgotButton.current?.focus());
  };
  if (forgot) {
    return (
      <PublicPage title="Reset your password">
        <ForgotPassword onBack={back} contact={operatorContactOf(settings)} />
      </PublicPage>
    );
  }
  return (
    <PublicPage title="Sign in">
      {refusal && <SsoRefusal words={refusal} />}
      {ended && (
        <p className="notice error" role="alert" data-testid="session-ended">
          You have been signed out: your session ended (it timed out, you signed out elsewhere, or your access to the
          team was removed).
        </p>
      )}
      {passwordReset && (
        <p className="notice ok" role="status">
          Your new password is set. Sign in with it.
        </p>
      )}
      <p className="hint">The practice&apos;s console: subscription, API key, team, catchment, alerts and webhook.</p>
      <SignInForm account={account} sso={CONSOLE_SSO} />
      <p>
        <button type="button" className="link-button" ref={forgotButton} onClick={() => setForgot(true)}>
          Forgot password?
        </button>
      </p>
      {settings?.ok && settings.data.enabled && (
        <p>
          New practice? <Link to="signup">Create an account</Link>
        </p>
      )}
    </PublicPage>
  );
}
