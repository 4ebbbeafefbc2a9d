import { ACTIVITY_ENDPOINTS, type ActivityData, type ActivityEvent } from '../../shared/api/activity';
import type { AccountService } from '../accounts/account-service';
import { AuditEventType, type AuditEvent, type AuditLog } from '../audit/audit-log';
import { errorResponse, SESSION_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { requireRole, requireSession, signedInMember } from '../sessions/require-session';

export interface ActivityRoutesDeps {
  accounts: AccountService;
  audit: Pick<AuditLog, 'read'>;
}

/**
 * An audit event as the practice sees it. The client address is left out, everyone's: a practice needs who did what
 * to whom and when, while staff members' home and mobile addresses are personal information it has no use for (the
 * operator's `npm run admin -- audit` keeps them for an investigation). A key appears only as its prefix, as stored.
 */
export function activityEvent(event: AuditEvent): ActivityEvent {
  return {
    at: event.at,
    event: event.event,
    source: event.source,
    actor: event.source === 'web' ? event.email : null,
    member_email: event.member_email ?? null,
    role: event.role ?? null,
    key_prefix: event.key_prefix ?? null,
    reason: event.reason ?? null,
    subscription: event.subscription ?? null,
    stripe_event_id: event.stripe_event_id ?? null,
    webhook_host: event.webhook_host ?? null,
    postcode_count: event.postcode_count ?? null,
    // Only on a rename: every other event's answer stays as it was.
    ...(event.organisation_name !== undefined && {
      previous_name: event.previous_name ?? '',
      organisation_name: event.organisation_name,
    }),
    ...(event.sso_provider !== undefined && { sso_provider: event.sso_provider }),
  };
}

/**
 * GET /api/v1/activity?limit=N (behind the cookie session): the signed-in member's organisation's audit trail, newest
 * first. Owners and admins only: it is a record of the team's sign-ins and of who changed the key, the team and the
 * subscription, a manager's tool like the team itself; the issue's list of what members see (status, catchment,
 * alerts, usage) leaves it out, and a member has no decision to take from colleagues' sign-ins. Its 405 is answered
 * before the session is required.
 */
export function activityRoutes({ accounts, audit }: ActivityRoutesDeps): Route[] {
  return [
    defineRoute({
      endpoint: ACTIVITY_ENDPOINTS.list,
      summary: "The organisation's audit trail, newest first (owners and admins)",
      description:
        'Sign-ins (by password, by single sign-on with its provider, refused, break-glass), sign-outs, key, team, invitation and subscription changes, catchment saves, webhook changes (set, replaced, removed, tested, with the host it points to) and single sign-on settings of the signed-in member’s organisation: who, what, on whom, when. Never a client address, a key (only its prefix) or a token. `event` is one of: ' +
        AuditEventType.options.join(', ') +
        ' (more may be added: show an unknown one by its name).',
      security: SESSION_AUTH,
      gates: [requireSession(accounts), requireRole('owner', 'admin')],
      ok: 'The newest events, newest first',
      responses: {
        400: errorResponse('invalid_request: limit is not a whole number from 1 to 500'),
        403: errorResponse('forbidden_role: members do not see the activity'),
      },
      handle: async ({ query: { limit } }, _req, res) => {
        const events = await audit.read({ organisationId: signedInMember(res).organisation_id, newest: limit });
        // Read oldest first: newest first here.
        const data: ActivityData = { events: events.reverse().map(activityEvent) };
        res.setHeader('Cache-Control', 'no-store');
        res.json({ success: true, data });
      },
    }),
  ];
}
