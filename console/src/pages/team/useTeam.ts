import { useState } from 'react';
import type { ResetLinkData } from '../../../../shared/api/invitations';
import type { Role, TeamData, TeamMember } from '../../../../shared/api/team';
import type { Account } from '../../../../ui/account/useAccount';
import type { AccountResult } from '../../../../ui/api/account-result';
import type { Notice } from '../../../../ui/common/NoticeLine';
import { ROLE_WORDS } from '../../role-words';
import { useConsoleApi, useLoad, useReloadOnFocus } from '../../use-load';

/** A reset link an admin asked for, for the member named. */
export interface ShownResetLink {
  email: string;
  data: ResetLinkData;
}

/**
 * The team as the server says it now, and what an owner or admin does to it: rename the organisation (owners), change
 * a member's role, remove a member, ask for a member's reset link. Every change answers the team as it is after it,
 * which replaces the one shown. One request at a time; the server's refusal is said in words.
 */
export function useTeam(account: Account) {
  const api = useConsoleApi();
  const { result, setResult, reload } = useLoad((a) => a.team());
  useReloadOnFocus(reload);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const [resetLink, setResetLink] = useState<ShownResetLink | null>(null);

  /** Runs `call`; its team answer replaces the one shown and `done` says what happened. */
  const change = async (call: () => Promise<AccountResult<TeamData>>, done: string, rereadSession = false) => {
    setBusy(true);
    setNotice(null);
    try {
      const answer = await call();
      if (!answer.ok) {
        setNotice({ kind: 'error', text: api.describe(answer) });
        return false;
      }
      setResult(answer);
      setNotice({ kind: 'ok', text: done });
      // The header shows the organisation's name and the viewer's own role.
      if (rereadSession) await account.loadSession();
      return true;
    } finally {
      setBusy(false);
    }
  };

  const rename = (name: string) => change(() => api.renameOrganisation(name), 'Organisation renamed.', true);

  const changeRole = (member: TeamMember, role: Role) =>
    change(
      () => api.changeRole(member.account_id, role),
      `${member.email} is now ${ROLE_WORDS[role].toLowerCase()}.`,
      member.account_id === account.accountId,
    );

  const remove = (member: TeamMember) =>
    change(
      () => api.removeMember(member.account_id),
      `${member.email} removed from the team: their sessions have ended.`,
    );

  const askResetLink = async (member: TeamMember) => {
    setBusy(true);
    setNotice(null);
    setResetLink(null);
    try {
      const answer = await api.resetLink(member.account_id);
      if (answer.ok) setResetLink({ email: member.email, data: answer.data });
      else setNotice({ kind: 'error', text: api.describe(answer) });
    } finally {
      setBusy(false);
    }
  };

  return { result, busy, notice, resetLink, rename, changeRole, remove, askResetLink, describe: api.describe };
}
