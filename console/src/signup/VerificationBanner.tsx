import { useState } from 'react';
import { VERIFICATION_DAYS } from '../../../shared/api/signup';
import { NoticeLine, type Notice } from '../../../ui/common/NoticeLine';
import { useConsoleApi, useLoad, useReloadOnFocus } from '../use-load';
import { useSignupSettings } from './use-signup-settings';

/**
 * Above every signed-in page while the signed-in address is not confirmed: "Send the link again". A server that does
 * not say (`email_verified` missing) counts as confirmed. Only where sign-up is on and links are e-mailed (SMTP_URL):
 * the operator's accounts (the only ones of a server without sign-up) were never sent a link, and without e-mail none
 * could come, so nobody is nagged for one. Read again when the window gets focus back, so a link opened in another
 * tab takes the banner away.
 */
export function VerificationBanner() {
  const api = useConsoleApi();
  const settings = useSignupSettings();
  const { result, reload } = useLoad((a) => a.session());
  useReloadOnFocus(reload);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  if (!settings?.ok || !settings.data.enabled || settings.data.email_verification === false) return null;
  if (!result?.ok || result.data.account?.email_verified !== false) return null;
  const { email } = result.data.account;

  const resend = async () => {
    setBusy(true);
    setNotice(null);
    const answer = await api.resendVerification();
    setBusy(false);
    if (!answer.ok) {
      const text =
        answer.code === 'rate_limited'
          ? 'Links were sent a moment ago: wait a few minutes before asking again.'
          : api.describe(answer);
      setNotice({ kind: 'error', text });
    } else if ('verified_at' in answer.data) {
      // Confirmed meanwhile (a link opened in another browser): nothing to ask for any more.
      reload();
    } else if (answer.data.verification === 'not_configured') {
      setNotice({
        kind: 'error',
        text: 'This server sends no e-mail, so no link can be sent: nothing else is needed.',
      });
    } else {
      setNotice({ kind: 'ok', text: `A new link is on its way to ${email}; it works for ${VERIFICATION_DAYS} days.` });
    }
  };

  return (
    <div className="banner" role="region" aria-label="Confirm your e-mail address" data-testid="verify-banner">
      <p>
        Your e-mail address is not confirmed yet: open the link we e-mailed to <strong>{email}</strong>. Nothing
        arrived?{' '}
        <button type="button" aria-disabled={busy} onClick={() => !busy && void resend()}>
          Send the link again
        </button>
      </p>
      <NoticeLine notice={notice} />
    </div>
  );
}
