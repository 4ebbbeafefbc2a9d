import type { RequestHandler, Response } from 'express';
import {
  MAX_PENDING_INVITATIONS,
  TEAM_INVITATION_ENDPOINTS,
  type InvitationsData,
  type NewInvitationData,
  type ResetLinkData,
} from '../../shared/api/invitations';
import type { AccountService } from '../accounts/account-service';
import { errorResponse, SESSION_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import type { OriginPolicy } from '../sessions/origin-policy';
import { requireRole, requireSession, signedInMember } from '../sessions/require-session';
import { actorOf, NO_SUCH_MEMBER } from '../team/team-routes';
import type { InvitationService } from './invitation-service';
import type { PasswordResetService } from './password-reset-service';

export interface TeamInvitationsRoutesDeps {
  invitations: InvitationService;
  resets: PasswordResetService;
  accounts: AccountService;
  /** Where the links point (OriginPolicy.linkOrigin). */
  origins: OriginPolicy;
}

/** An invitation named by an id that is not one is no invitation: 404, as an unknown id is. */
const NO_SUCH_INVITATION = { params: () => 'invitation_not_found' as const };

const REFUSED = {
  403: errorResponse(
    'forbidden_role: members, and admins for an owner (invite, revoke, resend, reset); or forbidden_origin',
  ),
};
const MAIL_REFUSED = {
  429: errorResponse(
    'mail_limited: the organisation or the address has had its e-mails for the hour (MAIL_LIMIT_PER_ORGANISATION, MAIL_LIMIT_PER_RECIPIENT); wait Retry-After seconds',
  ),
  503: errorResponse('rate_limit_unavailable: the shared counter cannot be reached (Retry-After)'),
};
const SENDING = {
  403: errorResponse(
    "forbidden_role: members, and admins for an owner's invitation (invite, re-invite, resend); email_unverified: with SMTP_URL set, the inviter's own address is not confirmed yet; subscription_required: billing is on and the subscription is not active; forbidden_origin",
  ),
  ...MAIL_REFUSED,
};
const NEW_OK = 'The invitation and its single-use link, shown this once (also e-mailed when SMTP_URL is set)';
const LIST_OK = 'The pending invitations, as they are now';

interface InvitationsContext extends TeamInvitationsRoutesDeps {
  /** Owners and admins, signed in. Gates rather than `authenticate`: a wrong method is 405 before signing in. */
  managing: RequestHandler[];
}

/**
 * The organisation's invitations and members' reset links, under /api/v1/team behind the cookie session: owners and
 * admins only, each within mayAssign (admins never invite an owner, nor revoke, resend or reset an owner's). Links are
 * in the answers once (Cache-Control: no-store, from the session gate) and never logged.
 */
export function teamInvitationsRoutes(deps: TeamInvitationsRoutesDeps): Route[] {
  const context = { ...deps, managing: [requireSession(deps.accounts), requireRole('owner', 'admin')] };
  return [
    listRoute(context),
    inviteRoute(context),
    revokeRoute(context),
    resendRoute(context),
    resetLinkRoute(context),
  ];
}

const organisationOf = (res: Response) => signedInMember(res).organisation_id;

function answerList(invitations: InvitationService, res: Response): void {
  res.json({ success: true, data: { invitations: invitations.list(organisationOf(res)) } satisfies InvitationsData });
}

function listRoute({ invitations, managing }: InvitationsContext): Route {
  return defineRoute({
    endpoint: TEAM_INVITATION_ENDPOINTS.list,
    summary: "The organisation's pending invitations (owners and admins)",
    security: SESSION_AUTH,
    gates: managing,
    ok: LIST_OK,
    responses: REFUSED,
    handle: (_input, _req, res) => answerList(invitations, res),
  });
}

function inviteRoute({ invitations, origins, managing }: InvitationsContext): Route {
  return defineRoute({
    endpoint: TEAM_INVITATION_ENDPOINTS.invite,
    summary: 'Invite an email with a role (owners: any; admins: admin or member)',
    description: `The link is valid 7 days and works once. Inviting an email again replaces its pending invitation (the old link stops working), if the caller could revoke it. At most ${MAX_PENDING_INVITATIONS} pending invitations per organisation. The answer is the same whether or not the email has an account anywhere: its holder learns at the link. Counts against the mail limit whether or not SMTP_URL is set.`,
    security: SESSION_AUTH,
    gates: managing,
    ok: NEW_OK,
    responses: { 400: errorResponse('invalid_request'), ...SENDING, 409: errorResponse('too_many_invitations') },
    handle: async ({ body }, req, res) => {
      const created = await invitations.invite(
        actorOf(req, res),
        organisationOf(res),
        body.email,
        body.role,
        origins.linkOrigin(req),
      );
      res.status(201).json({ success: true, data: created satisfies NewInvitationData });
    },
  });
}

function revokeRoute({ invitations, managing }: InvitationsContext): Route {
  return defineRoute({
    endpoint: TEAM_INVITATION_ENDPOINTS.revoke,
    summary: 'Revoke a pending invitation: its link stops working',
    security: SESSION_AUTH,
    gates: managing,
    ok: LIST_OK,
    responses: { ...REFUSED, 404: errorResponse('invitation_not_found') },
    invalid: NO_SUCH_INVITATION,
    handle: async ({ params }, req, res) => {
      await invitations.revoke(actorOf(req, res), organisationOf(res), params.id);
      answerList(invitations, res);
    },
  });
}

function resendRoute({ invitations, origins, managing }: InvitationsContext): Route {
  return defineRoute({
    endpoint: TEAM_INVITATION_ENDPOINTS.resend,
    summary: 'A new link for a pending invitation, valid 7 days from now (the old one stops working)',
    security: SESSION_AUTH,
    gates: managing,
    ok: NEW_OK,
    responses: { ...SENDING, 404: errorResponse('invitation_not_found') },
    invalid: NO_SUCH_INVITATION,
    handle: async ({ params }, req, res) => {
      const renewed = await invitations.resend(
        actorOf(req, res),
        organisationOf(res),
        params.id,
        origins.linkOrigin(req),
      );
      res.json({ success: true, data: renewed satisfies NewInvitationData });
    },
  });
}

function resetLinkRoute({ resets, origins, managing }: InvitationsContext): Route {
  return defineRoute({
    endpoint: TEAM_INVITATION_ENDPOINTS.resetLink,
    summary: "A password-reset link for a member (owners: anyone's; admins: an admin's or a member's)",
    description:
      'Valid 2 hours, works once, shown this once (also e-mailed to the member when SMTP_URL is set). Using it sets the password and ends all their sessions.',
    security: SESSION_AUTH,
    gates: managing,
    ok: 'The link, shown this once',
    responses: { ...REFUSED, 404: errorResponse('member_not_found'), ...MAIL_REFUSED },
    invalid: NO_SUCH_MEMBER,
    handle: async ({ params }, req, res) => {
      const issued = await resets.issue(
        actorOf(req, res),
        organisationOf(res),
        params.account_id,
        origins.linkOrigin(req),
      );
      res.status(201).json({ success: true, data: issued satisfies ResetLinkData });
    },
  });
}
