import { Router, type RequestHandler, type Response } from 'express';
import { successEnvelope } from '../../shared/api/envelope';
import { MemberParams, OrganisationRequest, RoleRequest, TeamData } from '../../shared/api/team';
import type { AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { jsonBody } from '../http/json-body';
import { methodNotAllowed } from '../http/method-not-allowed';
import { errorResponse, jsonRequestBody, jsonResponse, SESSION_AUTH, type ApiRegistry } from '../http/openapi-registry';
import { withValidBody } from '../http/validate-request';
import { requireRole, requireSession, signedInAccount, signedInMember } from '../sessions/require-session';
import { TeamError, type TeamActor, type TeamService } from './team-service';

export interface TeamRouterDeps {
  team: TeamService;
  accounts: AccountService;
}

/** For `.catch`: the team rules' refusals as their contract errors. */
function rethrowTeamError(err: unknown): never {
  if (err instanceof TeamError) throw new ContractError(err.code);
  throw err;
}

/** The signed-in member as the team rules see them, acting from the client's address. */
export function actorOf(req: Parameters<RequestHandler>[0], res: Response): TeamActor {
  return {
    member: signedInMember(res),
    email: signedInAccount(res).email,
    by: { source: 'web', ip: clientAddress(req) },
  };
}

/** The member named in the path, or 404 (an id that is not a plain string). */
export function memberId(params: unknown): string {
  const parsed = MemberParams.safeParse(params);
  if (!parsed.success) throw new ContractError('member_not_found');
  return parsed.data.account_id;
}

/**
 * /api/v1/team (behind the cookie session): the signed-in member's organisation and its members. Everyone sees it;
 * owners rename the organisation; owners and admins change roles and remove members within TeamService's rules.
 */
export function teamRouter(deps: TeamRouterDeps): Router {
  const { team, accounts } = deps;
  const view = (res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, data: team.view(signedInMember(res).organisation_id) satisfies TeamData });
  };

  const rename = withValidBody(
    OrganisationRequest,
    () => 'invalid_request',
    async ({ name }, _req, res) => {
      await accounts.renameOrganisation(signedInMember(res).organisation_id, name);
      view(res);
    },
  );

  const changeRole = withValidBody(
    RoleRequest,
    () => 'invalid_request',
    async ({ role }, req, res) => {
      const member = signedInMember(res);
      await team
        .changeRole(actorOf(req, res), member.organisation_id, memberId(req.params), role)
        .catch(rethrowTeamError);
      view(res);
    },
  );

  const remove: RequestHandler = async (req, res) => {
    const member = signedInMember(res);
    await team.remove(actorOf(req, res), member.organisation_id, memberId(req.params)).catch(rethrowTeamError);
    // Removing oneself ends one's own session too: answered as signed out would be, with the team as it is now.
    view(res);
  };

  const router = Router();
  router.use(requireSession(accounts));
  router.get('/', (_req, res) => view(res));
  router.patch('/', requireRole('owner'), jsonBody, rename);
  router.all('/', methodNotAllowed('GET, HEAD, PATCH'));
  const managing = requireRole('owner', 'admin');
  router.patch('/members/:account_id', managing, jsonBody, changeRole);
  router.delete('/members/:account_id', managing, remove);
  router.all('/members/:account_id', methodNotAllowed('PATCH, DELETE'));
  return router;
}

/** The team's operations in the OpenAPI document (issue #26). */
export function registerTeamPaths(registry: ApiRegistry): void {
  const TEAM = jsonResponse(successEnvelope(TeamData), 'The organisation and its members, as they are now');
  const REFUSED = {
    401: errorResponse('Sign in required'),
    403: errorResponse('forbidden_role: your role does not allow this; or forbidden_origin'),
  };
  registry.registerPath({
    method: 'get',
    path: '/api/v1/team',
    summary: "The signed-in member's organisation and its members (any role)",
    security: SESSION_AUTH,
    responses: { 200: TEAM, 401: errorResponse('Sign in required') },
  });
  registry.registerPath({
    method: 'patch',
    path: '/api/v1/team',
    summary: 'Rename the organisation (owners)',
    security: SESSION_AUTH,
    request: jsonRequestBody(OrganisationRequest),
    responses: { 200: TEAM, 400: errorResponse('invalid_request'), ...REFUSED },
  });
  const params = { params: MemberParams };
  registry.registerPath({
    method: 'patch',
    path: '/api/v1/team/members/{account_id}',
    summary: "Change a member's role (owners: any; admins: between admin and member, never an owner's)",
    security: SESSION_AUTH,
    request: { ...params, ...jsonRequestBody(RoleRequest) },
    responses: {
      200: TEAM,
      400: errorResponse('invalid_request'),
      ...REFUSED,
      404: errorResponse('No such member'),
      409: errorResponse('An organisation keeps at least one owner'),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/v1/team/members/{account_id}',
    summary:
      "Remove a member (and their sign-in): their sessions end at once, on every instance; the keys they created stay the organisation's",
    security: SESSION_AUTH,
    request: params,
    responses: {
      200: TEAM,
      ...REFUSED,
      404: errorResponse('No such member'),
      409: errorResponse('An organisation keeps at least one owner'),
    },
  });
}
