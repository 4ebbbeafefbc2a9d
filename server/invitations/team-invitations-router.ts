import { Router, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { successEnvelope } from '../../shared/api/envelope';
import {
  InvitationRequest,
  InvitationsData,
  MAX_PENDING_INVITATIONS,
  NewInvitationData,
  ResetLinkData,
} from '../../shared/api/invitations';
import { MemberParams } from '../../shared/api/team';
import type { AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import { MailLimitedError } from '../mail/mail-limit';
import { jsonBody } from '../http/json-body';
import { methodNotAllowed } from '../http/method-not-allowed';
import { errorResponse, jsonRequestBody, jsonResponse, SESSION_AUTH, type ApiRegistry } from '../http/openapi-registry';
import { withValidBody } from '../http/validate-request';
import { requireRole, requireSession, signedInMember } from '../sessions/require-session';
import type { OriginPolicy } from '../sessions/origin-policy';
import { actorOf, memberId } from '../team/team-router';
import { InvitationError, type InvitationService } from './invitation-service';
import { PasswordResetError, type PasswordResetService } from './password-reset-service';

export interface TeamInvitationsRouterDeps {
  invitations: InvitationService;
  resets: PasswordResetService;
  accounts: AccountService;
  /** Where the links point (OriginPolicy.linkOrigin). */
  origins: OriginPolicy;
}

/** The path parameter naming an invitation. */
const InvitationParams = z.object({ id: z.string().min(1).max(200) });

/**
 * For `.catch`: the invitation and reset rules' refusals as their contract errors, the mail limit's as 429 with
 * Retry-After (and an unreachable shared counter as 503: nothing is sent uncounted).
 */
export function rethrowLinkError(err: unknown): never {
  if (err instanceof InvitationError || err instanceof PasswordResetError) throw new ContractError(err.code);
  if (err instanceof MailLimitedError) {
    throw new ContractError('mail_limited', { retryAfterSeconds: err.retryAfterSeconds });
  }
  throw err;
}

function invitationId(params: unknown): string {
  const parsed = InvitationParams.safeParse(params);
  if (!parsed.success) throw new ContractError('invitation_not_found');
  return parsed.data.id;
}

/**
 * The organisation's invitations and members' reset links, under /api/v1/team behind the cookie session: owners and
 * admins only, each within mayAssign (admins never invite an owner, nor revoke, resend or reset an owner's). Links are
 * in the answers once (Cache-Control: no-store, from the session gate) and never logged.
 */
export function teamInvitationsRouter(deps: TeamInvitationsRouterDeps): Router {
  const { invitations, resets, accounts, origins } = deps;
  const organisationOf = (res: Response) => signedInMember(res).organisation_id;
  const list = (res: Response) => {
    res.json({ success: true, data: { invitations: invitations.list(organisationOf(res)) } satisfies InvitationsData });
  };

  const invite = withValidBody(
    InvitationRequest,
    () => 'invalid_request',
    async ({ email, role }, req, res) => {
      const created = await invitations
        .invite(actorOf(req, res), organisationOf(res), email, role, origins.linkOrigin(req))
        .catch(rethrowLinkError);
      res.status(201).json({ success: true, data: created satisfies NewInvitationData });
    },
  );

  const revoke: RequestHandler = async (req, res) => {
    await invitations.revoke(actorOf(req, res), organisationOf(res), invitationId(req.params)).catch(rethrowLinkError);
    list(res);
  };

  const resend: RequestHandler = async (req, res) => {
    const renewed = await invitations
      .resend(actorOf(req, res), organisationOf(res), invitationId(req.params), origins.linkOrigin(req))
      .catch(rethrowLinkError);
    res.json({ success: true, data: renewed satisfies NewInvitationData });
  };

  const resetLink: RequestHandler = async (req, res) => {
    const issued = await resets
      .issue(actorOf(req, res), organisationOf(res), memberId(req.params), origins.linkOrigin(req))
      .catch(rethrowLinkError);
    res.status(201).json({ success: true, data: issued satisfies ResetLinkData });
  };

  const router = Router();
  // Per route rather than router.use: the team router after this one answers the rest of /api/v1/team.
  const managing = [requireSession(accounts), requireRole('owner', 'admin')];
  router.get('/invitations', ...managing, (_req, res) => list(res));
  router.post('/invitations', ...managing, jsonBody, invite);
  router.all('/invitations', methodNotAllowed('GET, HEAD, POST'));
  router.delete('/invitations/:id', ...managing, revoke);
  router.all('/invitations/:id', methodNotAllowed('DELETE'));
  router.post('/invitations/:id/resend', ...managing, resend);
  router.all('/invitations/:id/resend', methodNotAllowed('POST'));
  router.post('/members/:account_id/reset-link', ...managing, resetLink);
  router.all('/members/:account_id/reset-link', methodNotAllowed('POST'));
  return router;
}

/** The team's invitations and reset links in the OpenAPI document (issue #26). */
export function registerTeamInvitationsPaths(registry: ApiRegistry): void {
  const REFUSED = {
    401: errorResponse('Sign in required'),
    403: errorResponse(
      'forbidden_role: members, and admins for an owner (invite, revoke, resend, reset); or forbidden_origin',
    ),
  };
  const SENDING = {
    ...REFUSED,
    403: errorResponse(
      "forbidden_role: members, and admins for an owner's invitation (invite, re-invite, resend); email_unverified: with SMTP_URL set, the inviter's own address is not confirmed yet; subscription_required: billing is on and the subscription is not active; forbidden_origin",
    ),
    429: errorResponse(
      'mail_limited: the organisation or the address has had its e-mails for the hour (MAIL_LIMIT_PER_ORGANISATION, MAIL_LIMIT_PER_RECIPIENT); wait Retry-After seconds',
    ),
    503: errorResponse('rate_limit_unavailable: the shared counter cannot be reached (Retry-After)'),
  };
  const NEW = jsonResponse(
    successEnvelope(NewInvitationData),
    'The invitation and its single-use link, shown this once (also e-mailed when SMTP_URL is set)',
  );
  const LIST = jsonResponse(successEnvelope(InvitationsData), 'The pending invitations, as they are now');
  const params = { params: InvitationParams };
  registry.registerPath({
    method: 'get',
    path: '/api/v1/team/invitations',
    summary: "The organisation's pending invitations (owners and admins)",
    security: SESSION_AUTH,
    responses: { 200: LIST, ...REFUSED },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/team/invitations',
    summary: 'Invite an email with a role (owners: any; admins: admin or member)',
    description: `The link is valid 7 days and works once. Inviting an email again replaces its pending invitation (the old link stops working), if the caller could revoke it. At most ${MAX_PENDING_INVITATIONS} pending invitations per organisation. The answer is the same whether or not the email has an account anywhere: its holder learns at the link. Counts against the mail limit whether or not SMTP_URL is set.`,
    security: SESSION_AUTH,
    request: jsonRequestBody(InvitationRequest),
    responses: {
      201: NEW,
      400: errorResponse('invalid_request'),
      ...SENDING,
      409: errorResponse('too_many_invitations'),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/v1/team/invitations/{id}',
    summary: 'Revoke a pending invitation: its link stops working',
    security: SESSION_AUTH,
    request: params,
    responses: { 200: LIST, ...REFUSED, 404: errorResponse('invitation_not_found') },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/team/invitations/{id}/resend',
    summary: 'A new link for a pending invitation, valid 7 days from now (the old one stops working)',
    security: SESSION_AUTH,
    request: params,
    responses: { 200: NEW, ...SENDING, 404: errorResponse('invitation_not_found') },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/team/members/{account_id}/reset-link',
    summary: "A password-reset link for a member (owners: anyone's; admins: an admin's or a member's)",
    description:
      'Valid 2 hours, works once, shown this once (also e-mailed to the member when SMTP_URL is set). Using it sets the password and ends all their sessions.',
    security: SESSION_AUTH,
    request: { params: MemberParams },
    responses: {
      201: jsonResponse(successEnvelope(ResetLinkData), 'The link, shown this once'),
      ...REFUSED,
      404: errorResponse('member_not_found'),
      429: SENDING[429],
      503: SENDING[503],
    },
  });
}
