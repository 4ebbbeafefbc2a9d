import type { Role } from '../../shared/api/team';

export const ROLE_WORDS: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };
