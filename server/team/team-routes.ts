import type { RequestHandler, Response } from 'express';
import { TEAM_ENDPOINTS, type TeamData } from '../../shared/api/team';
import type { AccountService } from '../accounts/account-service';
import { clientAddress } from '../http/client-address';
import { errorResponse, SESSION_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { requireRole, requireSession, signedInAccount, signedInMember } from '../sessions/require-session';
import type { TeamActor, TeamService } from './team-service';

export interface TeamRoutesDeps {
  team: TeamService;
  accounts: AccountService;
}

/** The signed-in member as the team rules see them, acting from the client's address. */
export function actorOf(req: Parameters<RequestHandler>[0], res: Response): TeamActor {
  return {
    member: signedInMember(res),
    email: signedInAccount(res).email,
    by: { source: 'web', ip: clientAddress(req) },
  };
}

/** A member named by an id that is not a plain string is no member: 404, as an unknown id is. */
export const NO_SUCH_MEMBER = { params: () => 'member_not_found' as const };

const TEAM_OK = 'The organisation and its members, as they are now';
const REFUSED = { 403: errorResponse('forbidden_role: your role does not allow this; or forbidden_origin') };
const MEMBER_REFUSED = {
  ...REFUSED,
  404: errorResponse('No such member'),
  409: errorResponse('An organisation keeps at least one owner'),
};

interface TeamContext extends TeamRoutesDeps {
  authenticate: RequestHandler;
}

/**
 * /api/v1/team (behind the cookie session): the signed-in member's organisation and its members. Everyone sees it;
 * owners rename the organisation; owners and admins change roles and remove members within TeamService's rules.
 */
export function teamRoutes(deps: TeamRoutesDeps): Route[] {
  // One handler object for every route: a wrong method's 405 comes after signing in, as the team's answers do.
  const context = { ...deps, authenticate: requireSession(deps.accounts) };
  return [viewRoute(context), renameRoute(context), changeRoleRoute(context), removeRoute(context)];
}

function answerTeam(team: TeamService, res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.json({ success: true, data: team.view(signedInMember(res).organisation_id) satisfies TeamData });
}

function viewRoute({ team, authenticate }: TeamContext): Route {
  return defineRoute({
    endpoint: TEAM_ENDPOINTS.view,
    summary: "The signed-in member's organisation and its members (any role)",
    security: SESSION_AUTH,
    authenticate,
    ok: TEAM_OK,
    handle: (_input, _req, res) => answerTeam(team, res),
  });
}

function renameRoute({ team, authenticate }: TeamContext): Route {
  return defineRoute({
    endpoint: TEAM_ENDPOINTS.rename,
    summary: 'Rename the organisation (owners)',
    security: SESSION_AUTH,
    authenticate,
    gates: [requireRole('owner')],
    ok: TEAM_OK,
    responses: { 400: errorResponse('invalid_request'), ...REFUSED },
    handle: async ({ body }, req, res) => {
      await team.rename(actorOf(req, res), signedInMember(res).organisation_id, body.name);
      answerTeam(team, res);
    },
  });
}

function changeRoleRoute({ team, authenticate }: TeamContext): Route {
  return defineRoute({
    endpoint: TEAM_ENDPOINTS.changeRole,
    summary: "Change a member's role (owners: any; admins: between admin and member, never an owner's)",
    security: SESSION_AUTH,
    authenticate,
    gates: [requireRole('owner', 'admin')],
    ok: TEAM_OK,
    responses: { 400: errorResponse('invalid_request'), ...MEMBER_REFUSED },
    invalid: NO_SUCH_MEMBER,
    handle: async ({ body, params }, req, res) => {
      await team.changeRole(actorOf(req, res), signedInMember(res).organisation_id, params.account_id, body.role);
      answerTeam(team, res);
    },
  });
}

function removeRoute({ team, authenticate }: TeamContext): Route {
  return defineRoute({
    endpoint: TEAM_ENDPOINTS.remove,
    summary:
      "Remove a member (and their sign-in): their sessions end at once, on every instance; the keys they created stay the organisation's",
    security: SESSION_AUTH,
    authenticate,
    gates: [requireRole('owner', 'admin')],
    ok: TEAM_OK,
    responses: MEMBER_REFUSED,
    invalid: NO_SUCH_MEMBER,
    handle: async ({ params }, req, res) => {
      await team.remove(actorOf(req, res), signedInMember(res).organisation_id, params.account_id);
      // Removing oneself ends one's own session too: answered as signed out would be, with the team as it is now.
      answerTeam(team, res);
    },
  });
}
