import { useState } from 'react';
import type { Notice } from '../../../ui/common/NoticeLine';
import { PublicPage } from '../PublicPage';
import { OperatorHelp, useOperatorContact } from '../signup/OperatorContact';
import { useConsoleApi } from '../use-load';
import { useLinkToken } from './link-token';
import { NewPasswordForm } from './NewPasswordForm';

const NO_LINK =
  'This page opens from a password-reset link. Open the link in your e-mail, or the one an admin of your team gave ' +
  'you, in full; or ask for a new one from the sign-in page.';

/** /console/reset-password#<token>: a new password set twice, then the console (`onReset`). */
export function ResetPasswordPage({ onReset }: { onReset(): Promise<void> }) {
  const api = useConsoleApi();
  const token = useLinkToken();
  const contact = useOperatorContact();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);

  const reset = async (password: string) => {
    if (!token) return;
    setBusy(true);
    setNotice(null);
    const answer = await api.resetPassword(token, password);
    if (answer.ok) {
      // Signed in by the reset when the server does so; otherwise the sign-in page, where the new password works.
      await onReset();
      return;
    }
    setBusy(false);
    setNotice({ kind: 'error', text: api.describe(answer) });
  };

  return (
    <PublicPage title="Set a new password">
      {token ? (
        <NewPasswordForm
          email={null}
          submitLabel="Set new password"
          busy={busy}
          notice={notice}
          onSubmit={(password) => void reset(password)}
        />
      ) : (
        <p className="notice error">{NO_LINK}</p>
      )}
      <OperatorHelp contact={contact} />
    </PublicPage>
  );
}
