import type { OpenedFeature } from '../lifecycle';
import { TeamService, type TeamServiceDeps } from './team-service';

/**
 * The team rules, for the server (which also ends a removed member's sessions and revokes what they sent) and the
 * admin CLI (which gives only the accounts and the audit trail) alike. No job, nothing to close.
 */
export function openTeam(deps: TeamServiceDeps): OpenedFeature<TeamService> {
  return { service: new TeamService(deps), jobs: [], closers: [] };
}
