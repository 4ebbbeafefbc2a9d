import { useState } from 'react';
import type { Invitation, NewInvitationData } from '../../../../shared/api/invitations';
import type { Role } from '../../../../shared/api/team';
import type { AccountFailure } from '../../../../ui/api/account-result';
import type { Notice } from '../../../../ui/common/NoticeLine';
import { useConsoleApi, useLoad, useReloadOnFocus } from '../../use-load';

/** Words that say what to do, where the server's message only says what is wrong. */
const UNPROVED =
  'Confirm your own e-mail address before inviting people: invitations are e-mailed in your name. Open the ' +
  'confirmation link we e-mailed you; if you have none, sign out and choose “Forgot password?”: the link it e-mails ' +
  'you confirms your address too.';

/**
 * The team's pending invitations (owners and admins): inviting an email with a role, revoking and resending. A new
 * or resent invitation's link is shown once (`created`).
 */
export function useInvitations() {
  const api = useConsoleApi();
  const { result, reload } = useLoad((a) => a.invitations());
  useReloadOnFocus(reload);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const [created, setCreated] = useState<NewInvitationData | null>(null);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setNotice(null);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  };

  /** Resolves true when the invitation was made (the form then empties). */
  const invite = async (email: string, role: Role): Promise<boolean> => {
    let made = false;
    await run(async () => {
      setCreated(null);
      const answer = await api.invite(email, role);
      if (!answer.ok) {
        setNotice({ kind: 'error', text: refusalWords(api, answer) });
        return;
      }
      made = true;
      setCreated(answer.data);
      reload();
    });
    return made;
  };

  const resend = (invitation: Invitation) =>
    run(async () => {
      setCreated(null);
      const answer = await api.resendInvitation(invitation.id);
      if (!answer.ok) {
        setNotice({ kind: 'error', text: refusalWords(api, answer) });
        return;
      }
      setCreated(answer.data);
      reload();
    });

  const revoke = (invitation: Invitation) =>
    run(async () => {
      const answer = await api.revokeInvitation(invitation.id);
      if (!answer.ok) {
        setNotice({ kind: 'error', text: api.describe(answer) });
        return;
      }
      if (created?.invitation.id === invitation.id) setCreated(null);
      setNotice({ kind: 'ok', text: `Invitation for ${invitation.email} revoked: its link no longer works.` });
      reload();
    });

  return { result, busy, notice, created, invite, resend, revoke, describe: api.describe };
}

function refusalWords(api: ReturnType<typeof useConsoleApi>, failure: AccountFailure): string {
  return failure.code === 'email_unverified' ? UNPROVED : api.describe(failure);
}
