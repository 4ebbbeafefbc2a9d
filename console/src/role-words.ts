import type { Role } from '../../shared/api/team';

export const ROLE_WORDS: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** What each role may do, in one line: said where a role is chosen (inviting) and where it is accepted (the link). */
export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  owner: 'Everything an admin does, and billing, the practice’s name and the other owners.',
  admin: 'Looks after the API key, the team (except owners), the catchment and the webhook.',
  member: 'Checks postcodes and sees the catchment, the alerts and the usage; changes nothing (a GP, a receptionist).',
};

/** "Admin: looks after the API key, …". */
export const roleLine = (role: Role): string =>
  `${ROLE_WORDS[role]}: ${ROLE_DESCRIPTIONS[role].charAt(0).toLowerCase()}${ROLE_DESCRIPTIONS[role].slice(1)}`;
