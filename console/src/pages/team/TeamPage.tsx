import type { Account } from '../../../../ui/account/useAccount';
import { NoticeLine } from '../../../../ui/common/NoticeLine';
import { INVITATION_DAYS, RESET_HOURS } from '../../../../shared/api/invitations';
import { canManage, type Role } from '../../../../shared/api/team';
import { PendingInvitations, InviteForm } from './Invitations';
import { assignable, Members } from './Members';
import { OnceLink } from './OnceLink';
import { OrganisationName } from './OrganisationName';
import { useInvitations } from './useInvitations';
import { useTeam } from './useTeam';

/** Inviting and the pending invitations: owners and admins only (members never load them). */
function InvitationsSections({ viewer }: { viewer: Role }) {
  const invitations = useInvitations();
  const { created } = invitations;
  return (
    <>
      <section aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite someone</h2>
        <p className="hint">
          They get a link valid {INVITATION_DAYS} days, once, to set their password and join with this role.
        </p>
        <InviteForm roles={assignable(viewer)} busy={invitations.busy} onInvite={invitations.invite} />
        {created && (
          <OnceLink
            title={`Invitation for ${created.invitation.email}`}
            link={created.link}
            email={created.invitation.email}
            emailed={created.emailed}
            expiresAt={created.invitation.expires_at}
          />
        )}
        <NoticeLine notice={invitations.notice} />
      </section>
      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading">Pending invitations</h2>
        <PendingInvitations
          result={invitations.result}
          busy={invitations.busy}
          describe={invitations.describe}
          onResend={(i) => void invitations.resend(i)}
          onRevoke={(i) => void invitations.revoke(i)}
        />
      </section>
    </>
  );
}

/**
 * The organisation and its people. Everyone sees the name and the members; owners rename the organisation; owners and
 * admins change roles, remove members, hand out reset links and invite (within mayAssign). A member sees no control.
 */
export function TeamPage({ account }: { account: Account }) {
  const team = useTeam(account);
  const viewer: Role = account.membership?.role ?? 'owner';
  const manages = canManage(viewer);
  const { result, resetLink } = team;
  if (!result) return <p className="hint">Loading the team…</p>;
  if (!result.ok) {
    return <NoticeLine notice={{ kind: 'error', text: `Could not load the team: ${team.describe(result)}` }} />;
  }
  const { organisation } = result.data;
  return (
    <>
      <section aria-labelledby="organisation-heading">
        <h2 id="organisation-heading">Organisation</h2>
        <OrganisationName
          key={organisation.name}
          name={organisation.name}
          owner={viewer === 'owner'}
          busy={team.busy}
          onRename={(name) => void team.rename(name)}
        />
      </section>
      <section aria-labelledby="members-heading">
        <h2 id="members-heading" tabIndex={-1}>
          Members
        </h2>
        {!manages && <p className="hint">An owner or admin of your team invites, changes and removes members.</p>}
        <Members
          team={result.data}
          viewer={viewer}
          selfId={account.accountId}
          busy={team.busy}
          onChangeRole={team.changeRole}
          onRemove={team.remove}
          onResetLink={(member) => void team.askResetLink(member)}
        />
        {resetLink && (
          <OnceLink
            title={`Password reset link for ${resetLink.email}`}
            link={resetLink.data.link}
            email={resetLink.email}
            emailed={resetLink.data.emailed}
            expiresAt={resetLink.data.expires_at}
          />
        )}
        <NoticeLine notice={team.notice} />
        {manages && (
          <p className="hint">A reset link lets the member set a new password within {RESET_HOURS} hours, once.</p>
        )}
      </section>
      {manages && <InvitationsSections viewer={viewer} />}
    </>
  );
}
