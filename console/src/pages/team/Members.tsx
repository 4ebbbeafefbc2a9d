import { useRef, useState } from 'react';
import { mayAssign, Role as Roles, type Role, type TeamData, type TeamMember } from '../../../../shared/api/team';
import { displayInstant } from '../../../../ui/common/display-dates';
import { TableScroll } from '../../../../ui/common/TableScroll';
import { Confirm } from '../../Confirm';
import { ROLE_WORDS } from '../../role-words';

export interface MembersProps {
  team: TeamData;
  /** The signed-in member's role and account: what they may do, and which row is theirs. */
  viewer: Role;
  selfId: string | null;
  busy: boolean;
  onChangeRole(member: TeamMember, role: Role): Promise<boolean>;
  onRemove(member: TeamMember): Promise<boolean>;
  onResetLink(member: TeamMember): void;
}

/** The roles `viewer` may give, in the contract's order. */
export const assignable = (viewer: Role): Role[] => Roles.options.filter((role) => mayAssign(viewer, role));

interface RowProps {
  member: TeamMember;
  /** The roles the viewer may give this member; empty: the row is read only (an owner seen by an admin, oneself). */
  roles: Role[];
  busy: boolean;
  onChangeRole(role: Role): void;
  onAskRemove(button: HTMLButtonElement): void;
  onResetLink(): void;
}

function RoleCell({ member, roles, busy, onChangeRole }: Pick<RowProps, 'member' | 'roles' | 'busy' | 'onChangeRole'>) {
  const [role, setRole] = useState<Role>(member.role);
  const id = `role-${member.account_id}`;
  if (roles.length === 0) return <td>{ROLE_WORDS[member.role]}</td>;
  return (
    <td>
      <label className="visually-hidden" htmlFor={id}>
        Role of {member.email}
      </label>
      <select id={id} value={role} onChange={(e) => setRole(e.target.value as Role)}>
        {roles.map((r) => (
          <option key={r} value={r}>
            {ROLE_WORDS[r]}
          </option>
        ))}
      </select>{' '}
      <button
        type="button"
        aria-label={`Change role of ${member.email}`}
        disabled={busy || role === member.role}
        onClick={() => onChangeRole(role)}
      >
        Change role
      </button>
    </td>
  );
}

function MemberRow({ member, roles, busy, onChangeRole, onAskRemove, onResetLink }: RowProps) {
  const removeButton = useRef<HTMLButtonElement>(null);
  return (
    <tr data-testid="team-member">
      <th scope="row">{member.email}</th>
      {/* Keyed by the role the server holds: after a change the select starts from it again. */}
      <RoleCell key={member.role} member={member} roles={roles} busy={busy} onChangeRole={onChangeRole} />
      <td>
        <time dateTime={member.joined_at}>{displayInstant(member.joined_at)}</time>
      </td>
      <td>
        {roles.length > 0 && (
          <span className="row-actions">
            <button type="button" aria-label={`Reset link for ${member.email}`} disabled={busy} onClick={onResetLink}>
              Reset link
            </button>
            <button
              type="button"
              className="danger"
              ref={removeButton}
              aria-label={`Remove ${member.email}`}
              disabled={busy}
              onClick={() => removeButton.current && onAskRemove(removeButton.current)}
            >
              Remove
            </button>
          </span>
        )}
      </td>
    </tr>
  );
}

function ConfirmRemove({ member, onYes, onCancel }: { member: TeamMember; onYes(): void; onCancel(): void }) {
  return (
    <tr>
      <td colSpan={4}>
        <Confirm id="remove-member-text" yes="Yes, remove" onYes={onYes} onCancel={onCancel}>
          Remove {member.email} from the team? Their sign-in stops working at once, on every open console and extension.
          The API key stays the organisation&apos;s.
        </Confirm>
      </td>
    </tr>
  );
}

/**
 * The members: email, role, joined. Where the viewer may act on a member (mayAssign, never on themself), a role
 * select offering only the roles they may give, Reset link, and Remove after a confirmation that takes focus and gives
 * it back on Cancel (or Escape).
 */
export function Members({ team, viewer, selfId, busy, onChangeRole, onRemove, onResetLink }: MembersProps) {
  const [confirming, setConfirming] = useState<{ member: TeamMember; button: HTMLButtonElement } | null>(null);
  const rolesFor = (member: TeamMember) =>
    member.account_id !== selfId && mayAssign(viewer, member.role) ? assignable(viewer) : [];
  const cancel = () => {
    confirming?.button.focus();
    setConfirming(null);
  };
  const remove = async (member: TeamMember) => {
    setConfirming(null);
    if (await onRemove(member)) document.getElementById('members-heading')?.focus();
  };
  return (
    <TableScroll label="Team members" className="team-table-wrap">
      <table className="catchment-table team-table" aria-labelledby="members-heading">
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {team.members.flatMap((member) => {
            const row = (
              <MemberRow
                key={member.account_id}
                member={member}
                roles={rolesFor(member)}
                busy={busy}
                onChangeRole={(role) => void onChangeRole(member, role)}
                onAskRemove={(button) => setConfirming({ member, button })}
                onResetLink={() => onResetLink(member)}
              />
            );
            if (confirming?.member.account_id !== member.account_id) return [row];
            return [
              row,
              <ConfirmRemove
                key={`${member.account_id}:confirm`}
                member={member}
                onYes={() => void remove(member)}
                onCancel={cancel}
              />,
            ];
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}
