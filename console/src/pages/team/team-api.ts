import { TEAM_INVITATION_ENDPOINTS } from '../../../../shared/api/invitations';
import { TEAM_ENDPOINTS, type Role } from '../../../../shared/api/team';
import type { ConsoleCalls } from '../../console-calls';

/** The Team page's calls: the members and the organisation's name, and the invitations and reset links. */
export const teamApi = ({ signedIn }: ConsoleCalls) => ({
  team: () => signedIn(TEAM_ENDPOINTS.view),
  renameOrganisation: (name: string) => signedIn(TEAM_ENDPOINTS.rename, { body: { name } }),
  changeRole: (accountId: string, role: Role) =>
    signedIn(TEAM_ENDPOINTS.changeRole, { params: { account_id: accountId }, body: { role } }),
  removeMember: (accountId: string) => signedIn(TEAM_ENDPOINTS.remove, { params: { account_id: accountId } }),
  resetLink: (accountId: string) =>
    signedIn(TEAM_INVITATION_ENDPOINTS.resetLink, { params: { account_id: accountId } }),
  invitations: () => signedIn(TEAM_INVITATION_ENDPOINTS.list),
  invite: (email: string, role: Role) => signedIn(TEAM_INVITATION_ENDPOINTS.invite, { body: { email, role } }),
  revokeInvitation: (id: string) => signedIn(TEAM_INVITATION_ENDPOINTS.revoke, { params: { id } }),
  resendInvitation: (id: string) => signedIn(TEAM_INVITATION_ENDPOINTS.resend, { params: { id } }),
});
