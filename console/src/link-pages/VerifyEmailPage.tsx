import { useEffect, useRef, useState } from 'react';
import type { EmailVerifiedData } from '../../../shared/api/signup';
import type { AccountResult } from '../../../ui/api/account-result';
import { PublicPage } from '../PublicPage';
import { Link } from '../router';
import { useConsoleApi } from '../use-load';
import { useLinkToken } from './link-token';

const NO_LINK =
  'This page opens from the link in the e-mail we sent to confirm your address. Open that link in full; or sign in ' +
  'and choose “Send the link again”.';

/**
 * /console/verify-email#<token>: confirms the address the link was sent to, at once (the link is the person's click).
 * Works signed in or not; the console then stops asking for the confirmation.
 */
export function VerifyEmailPage() {
  const api = useConsoleApi();
  const token = useLinkToken();
  const [answer, setAnswer] = useState<AccountResult<EmailVerifiedData> | null>(null);
  // The token is single-use: a second request (React's development double effect) would be refused as used.
  const sent = useRef(false);
  useEffect(() => {
    if (!token || sent.current) return;
    sent.current = true;
    void api.verifyEmail(token).then(setAnswer);
  }, [api, token]);

  let body;
  if (!token) {
    body = <p className="notice error">{NO_LINK}</p>;
  } else if (!answer) {
    body = (
      <p className="hint" role="status">
        Confirming your address…
      </p>
    );
  } else if (!answer.ok) {
    body = (
      <p className="notice error" role="alert" data-testid="verify-refused">
        {api.describe(answer).replace(/\.$/, '')}. Sign in and choose “Send the link again” for a new one.
      </p>
    );
  } else {
    body = (
      <p className="notice ok" role="status" data-testid="verify-done">
        Thank you: {answer.data.email} is confirmed.
      </p>
    );
  }
  return (
    <PublicPage title="Confirm your e-mail address">
      {body}
      <p>
        <Link to="">Open the console</Link>
      </p>
    </PublicPage>
  );
}
