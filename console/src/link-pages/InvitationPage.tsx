import { useEffect, useState } from 'react';
import type { InvitationPreview } from '../../../shared/api/invitations';
import { Role } from '../../../shared/api/team';
import type { AccountResult } from '../../../ui/api/account-result';
import { displayInstant } from '../../../ui/common/display-dates';
import type { Notice } from '../../../ui/common/NoticeLine';
import { PublicPage } from '../PublicPage';
import { ROLE_DESCRIPTIONS, ROLE_WORDS, roleLine } from '../role-words';
import { useConsoleApi } from '../use-load';
import { useLinkToken } from './link-token';
import { NewPasswordForm } from './NewPasswordForm';

const NO_LINK =
  'This page opens from an invitation link. Open the link in your invitation e-mail, or the one an admin of your ' +
  'team gave you, in full.';

/** What the link is for, once the server has looked it up: the person checks it before setting a password. */
function Preview({ preview }: { preview: InvitationPreview }) {
  return (
    <dl className="status" data-testid="invitation-preview">
      <dt>Organisation</dt>
      <dd data-testid="invitation-organisation">{preview.organisation}</dd>
      <dt>Email</dt>
      <dd>{preview.email}</dd>
      <dt>Role</dt>
      <dd>
        <span data-testid="invitation-role">{ROLE_WORDS[preview.role]}</span>
        <span className="hint" data-testid="invitation-role-words">
          {' '}
          — {ROLE_DESCRIPTIONS[preview.role]}
        </span>
      </dd>
      <dt>Valid until</dt>
      <dd>{displayInstant(preview.expires_at)}</dd>
    </dl>
  );
}

/** The three roles side by side, so the person can tell what they were given from what they were not. */
function RoleGuide() {
  return (
    <details className="role-guide" data-testid="role-guide">
      <summary>What each role may do</summary>
      <ul>
        {Role.options.map((role) => (
          <li key={role}>{roleLine(role)}</li>
        ))}
      </ul>
    </details>
  );
}

/**
 * /console/invitation#<token>: who invited the person to what, a password set twice, and then the console signed in
 * (`onAccepted`).
 */
export function InvitationPage({ onAccepted }: { onAccepted(): Promise<void> }) {
  const api = useConsoleApi();
  const token = useLinkToken();
  const [lookup, setLookup] = useState<AccountResult<InvitationPreview> | null>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  useEffect(() => {
    if (!token) return;
    let live = true;
    void api.lookupInvitation(token).then((answer) => live && setLookup(answer));
    return () => {
      live = false;
    };
  }, [api, token]);

  const accept = async (password: string) => {
    if (!token) return;
    setBusy(true);
    setNotice(null);
    const answer = await api.acceptInvitation(token, password);
    if (answer.ok) {
      await onAccepted();
      return;
    }
    setBusy(false);
    setNotice({ kind: 'error', text: api.describe(answer) });
  };

  let body;
  if (!token) {
    body = <p className="notice error">{NO_LINK}</p>;
  } else if (!lookup) {
    body = <p className="hint">Reading the invitation…</p>;
  } else if (!lookup.ok && lookup.code === 'account_exists') {
    body = (
      <p className="notice error" role="alert" data-testid="invitation-refused">
        This e-mail address already has an account here, so it cannot join with this invitation.{' '}
        <a href="/console/">Sign in</a> with it instead (choose “Forgot password?” there if you need a new one). An
        account belongs to one practice: to join this one with the same address, ask whoever runs this service.
      </p>
    );
  } else if (!lookup.ok) {
    body = (
      <p className="notice error" role="alert" data-testid="invitation-refused">
        {api.describe(lookup)} Ask an admin of your team for a new invitation.
      </p>
    );
  } else {
    body = (
      <>
        <p>You are invited to join your practice&apos;s team. Choose a password to finish.</p>
        <Preview preview={lookup.data} />
        <RoleGuide />
        <NewPasswordForm
          email={lookup.data.email}
          submitLabel="Set password and join"
          busy={busy}
          notice={notice}
          onSubmit={(password) => void accept(password)}
        />
      </>
    );
  }
  return <PublicPage title="Join your team">{body}</PublicPage>;
}
