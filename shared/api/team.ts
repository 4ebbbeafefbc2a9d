import { z } from 'zod';
import { plainText } from './text-fields';
import { endpoint } from './endpoint';

/**
 * What a member of an organisation (a practice) may do:
 * - `owner`: everything, including the owners' list;
 * - `admin`: the API key, the team except owners, the catchment and the webhook;
 * - `member`: sees status, catchment, alerts and usage, and checks postcodes by hand; changes nothing.
 */
export const Role = z.enum(['owner', 'admin', 'member']).meta({ id: 'Role' });
export type Role = z.infer<typeof Role>;

/** Roles that may change the organisation's key, catchment and webhook, and manage its team. */
export const MANAGING_ROLES: readonly Role[] = ['owner', 'admin'];

/** Whether `role` may manage the organisation (key, catchment, webhook, team). */
export const canManage = (role: Role): boolean => MANAGING_ROLES.includes(role);

/**
 * Whether a member with role `actor` may give or take role `target` (invite with it, change someone to or from it,
 * remove someone who has it): owners anything; admins only admin and member; members nothing.
 */
export function mayAssign(actor: Role, target: Role): boolean {
  if (actor === 'owner') return true;
  return actor === 'admin' && target !== 'owner';
}

/** One person in the organisation's team. */
export const TeamMember = z
  .object({
    account_id: z.string(),
    email: z.string(),
    role: Role,
    joined_at: z.string().meta({ description: 'When they became a member (ISO 8601 UTC)' }),
  })
  .meta({ id: 'TeamMember' });
export type TeamMember = z.infer<typeof TeamMember>;

export const TeamData = z
  .object({
    organisation: z.object({ id: z.string(), name: z.string() }),
    members: z.array(TeamMember),
  })
  .meta({ id: 'Team' });
export type TeamData = z.infer<typeof TeamData>;

export const MAX_ORGANISATION_NAME_LENGTH = 200;

/** PATCH /api/v1/team: the organisation's name (owners only). */
export const OrganisationRequest = z
  .object({ name: plainText().trim().min(1).max(MAX_ORGANISATION_NAME_LENGTH) })
  .strict()
  .meta({ id: 'OrganisationRequest' });

/** PATCH /api/v1/team/members/{account_id}: a member's new role. */
export const RoleRequest = z.object({ role: Role }).strict().meta({ id: 'RoleRequest' });

/** The path parameter naming a member. */
export const MemberParams = z.object({ account_id: plainText().min(1).max(200) });

/** The signed-in member's organisation and its members. */
export const TEAM_ENDPOINTS = {
  view: endpoint({ method: 'get', path: '/api/v1/team', data: TeamData }),
  rename: endpoint({ method: 'patch', path: '/api/v1/team', body: OrganisationRequest, data: TeamData }),
  changeRole: endpoint({
    method: 'patch',
    path: '/api/v1/team/members/{account_id}',
    params: MemberParams,
    body: RoleRequest,
    data: TeamData,
  }),
  remove: endpoint({
    method: 'delete',
    path: '/api/v1/team/members/{account_id}',
    params: MemberParams,
    data: TeamData,
  }),
} as const;
