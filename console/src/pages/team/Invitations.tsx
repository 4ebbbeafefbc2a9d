import { useRef, useState } from 'react';
import { EmailAddress } from '../../../../shared/api/auth';
import type { Invitation, InvitationsData } from '../../../../shared/api/invitations';
import type { Role } from '../../../../shared/api/team';
import type { AccountResult } from '../../../../ui/api/account-result';
import type { AccountFailure } from '../../../../ui/api/account-result';
import { displayInstant } from '../../../../ui/common/display-dates';
import { TableScroll } from '../../../../ui/common/TableScroll';
import { ROLE_WORDS, roleLine } from '../../role-words';

export interface InviteFormProps {
  /** The roles the viewer may invite with. */
  roles: Role[];
  busy: boolean;
  /** Resolves true when the invitation was made: the form empties. */
  onInvite(email: string, role: Role): Promise<boolean>;
}

const EMAIL_PROBLEM = 'Enter an e-mail address like name@clinic.com.au.';

/**
 * An email and a role, each role said in one line: the server answers the invitation's link, shown once. The address
 * is checked here with the contract's own rule, so a typing slip is said at the field, not as the server's refusal.
 */
export function InviteForm({ roles, busy, onInvite }: InviteFormProps) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [problem, setProblem] = useState<string | null>(null);
  const emailField = useRef<HTMLInputElement>(null);
  const submit = async () => {
    const address = email.trim();
    if (!EmailAddress.safeParse(address).success) {
      setProblem(EMAIL_PROBLEM);
      emailField.current?.focus();
      return;
    }
    setProblem(null);
    if (await onInvite(address, role)) setEmail('');
    // Refused (an account with this address already): the notice says why, and the address is there to correct.
    else emailField.current?.focus();
  };
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
      noValidate
    >
      <div className="field">
        <label htmlFor="invite-email">Email</label>
        <input
          ref={emailField}
          id="invite-email"
          type="email"
          autoComplete="off"
          value={email}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'invite-email-problem' : undefined}
          onChange={(e) => setEmail(e.target.value)}
        />
        {problem && (
          <p id="invite-email-problem" className="notice error" role="alert">
            {problem}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor="invite-role">Role</label>
        <select
          id="invite-role"
          value={role}
          aria-describedby="invite-role-hint"
          onChange={(e) => setRole(e.target.value as Role)}
        >
          {roles.map((r) => (
            <option key={r} value={r}>
              {ROLE_WORDS[r]}
            </option>
          ))}
        </select>
        <ul id="invite-role-hint" className="hint" data-testid="invite-roles">
          {roles.map((r) => (
            <li key={r}>{roleLine(r)}</li>
          ))}
        </ul>
      </div>
      <button type="submit" disabled={busy}>
        Invite
      </button>
    </form>
  );
}

export interface PendingProps {
  result: AccountResult<InvitationsData> | null;
  busy: boolean;
  describe(failure: AccountFailure): string;
  onResend(invitation: Invitation): void;
  onRevoke(invitation: Invitation): void;
}

/** The invitations not yet accepted, each with Resend (a new link, shown once) and Revoke. */
export function PendingInvitations({ result, busy, describe, onResend, onRevoke }: PendingProps) {
  if (!result) return <p className="hint">Loading the invitations…</p>;
  if (!result.ok) {
    return (
      <p className="notice error" role="alert">
        Could not load the invitations: {describe(result)}
      </p>
    );
  }
  const { invitations } = result.data;
  if (invitations.length === 0) return <p data-testid="invitations-empty">No pending invitations.</p>;
  return (
    <TableScroll label="Pending invitations" className="team-table-wrap">
      <table className="catchment-table team-table" aria-labelledby="pending-heading" data-testid="invitations">
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Invited by</th>
            <th scope="col">Valid until</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {invitations.map((invitation) => (
            <tr key={invitation.id}>
              <th scope="row">{invitation.email}</th>
              <td>{ROLE_WORDS[invitation.role]}</td>
              <td>{invitation.invited_by ?? 'The operator'}</td>
              <td>
                <time dateTime={invitation.expires_at}>{displayInstant(invitation.expires_at)}</time>
              </td>
              <td>
                <span className="row-actions">
                  <button
                    type="button"
                    aria-label={`Resend invitation to ${invitation.email}`}
                    disabled={busy}
                    onClick={() => onResend(invitation)}
                  >
                    Resend
                  </button>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Revoke invitation to ${invitation.email}`}
                    disabled={busy}
                    onClick={() => onRevoke(invitation)}
                  >
                    Revoke
                  </button>
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
