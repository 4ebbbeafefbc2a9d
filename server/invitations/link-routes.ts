import type { Request, Response } from 'express';
import { MIN_PASSWORD_LENGTH, type SessionData } from '../../shared/api/auth';
import { LINK_ENDPOINTS, type InvitationPreview, type ResetRequestedData } from '../../shared/api/invitations';
import type { Account, Member } from '../accounts/account-records';
import type { LoginThrottle } from '../auth/login-throttle';
import { sessionViewer, startSession, type SessionViewDeps } from '../auth/session-view';
import { ContractError, isContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { errorResponse, NO_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import type { ErrorFor } from '../http/validate-request';
import type { OriginPolicy } from '../sessions/origin-policy';
import type { InvitationService } from './invitation-service';
import { linkUse } from './link-throttle';
import type { PasswordResetService } from './password-reset-service';

export interface LinkRoutesDeps extends SessionViewDeps {
  invitations: InvitationService;
  resets: PasswordResetService;
  origins: OriginPolicy;
  /** Password-reset requests' throttle: sign-in's limits, in buckets of their own (LoginThrottle.scoped). */
  resetThrottle: LoginThrottle;
  /** Links' use (invitation look-up and acceptance, password reset), per client address (links.ts's limits). */
  linkThrottle: LoginThrottle;
}

/**
 * A link's token that is not one (cut short when copied, say) is a bad link; a password shorter than the minimum is
 * 400 weak_password, which the console shows as such; anything else is the request's shape.
 */
export const linkError: ErrorFor = (path, input) => {
  if (path[0] === 'token') return 'invalid_link';
  const password = (input as { password?: unknown } | null)?.password;
  if (path[0] === 'password' && typeof password === 'string' && password.length < MIN_PASSWORD_LENGTH) {
    return 'weak_password';
  }
  return 'invalid_request';
};

const SIGNED_IN_OK = 'Signed in (a new session cookie), as after sign-in';
const BAD_LINK =
  'invalid_link: unknown, used, revoked or expired link; weak_password (under 10 characters); invalid_request';
const COMMON = {
  403: errorResponse('Request origin is not allowed (a session cookie sent from another site)'),
  413: errorResponse('Request body over 10 kB'),
  415: errorResponse('Content-Type is not application/json'),
};
const THROTTLED = {
  429: errorResponse(
    'Too many refused links from this client address (20 in 15 minutes, as failed sign-ins); wait Retry-After seconds',
  ),
};
const ACCOUNT_EXISTS = { 409: errorResponse('account_exists: the email has an account (sign in with it instead)') };

type Throttled = <T>(req: Request, use: () => Promise<T>) => Promise<T>;

interface LinkContext extends LinkRoutesDeps {
  /** A link's use, counted per client address: a refused link counts as a failed sign-in. */
  throttled: Throttled;
  /** Signs the link's person in, as POST /api/v1/auth/login does, and answers their session. */
  signIn: (req: Request, res: Response, who: { account: Account; member: Member }) => Promise<void>;
}

/**
 * The pages a link opens (no session needed; behind the cookie session all the same, so the Origin rules apply to a
 * browser that has one): /api/v1/invitations (lookup, accept) and /api/v1/auth/password-reset (request, reset).
 * Accepting an invitation or resetting a password signs the person in as POST /api/v1/auth/login does.
 */
export function linkRoutes(deps: LinkRoutesDeps): { invitations: Route[]; passwordReset: Route[] } {
  const sessionView = sessionViewer(deps);
  const context: LinkContext = {
    ...deps,
    // Only a link refused counts against the address; a full password-hashing line refuses with nothing counted.
    throttled: linkUse(deps.linkThrottle, (err) => isContractError(err, 'invalid_link', 'account_exists')),
    signIn: async (req, res, { account, member }) => {
      await startSession(req, account.id);
      res.json({ success: true, data: (await sessionView(req, { account, member })) satisfies SessionData });
    },
  };
  return {
    invitations: [lookupRoute(context), acceptRoute(context)],
    passwordReset: [resetRoute(context), requestResetRoute(context)],
  };
}

function lookupRoute({ invitations, throttled }: LinkContext): Route {
  return defineRoute({
    endpoint: LINK_ENDPOINTS.lookupInvitation,
    summary: 'What an invitation link is for: the organisation, the email and the role',
    security: NO_AUTH,
    ok: 'The pending invitation',
    responses: {
      400: errorResponse('invalid_link: unknown, used, revoked or expired link, or its sender may no longer send it'),
      ...ACCOUNT_EXISTS,
      ...COMMON,
      ...THROTTLED,
    },
    invalid: { body: linkError },
    handle: async ({ body }, req, res) => {
      const preview = await throttled(req, async () => invitations.lookup(body.token));
      res.json({ success: true, data: preview satisfies InvitationPreview });
    },
  });
}

function acceptRoute({ invitations, throttled, signIn }: LinkContext): Route {
  return defineRoute({
    endpoint: LINK_ENDPOINTS.acceptInvitation,
    summary: 'Accept an invitation: the account is created with the invited role and signed in; the link is used up',
    security: NO_AUTH,
    ok: SIGNED_IN_OK,
    responses: {
      400: errorResponse(BAD_LINK),
      ...ACCOUNT_EXISTS,
      ...COMMON,
      ...THROTTLED,
      503: errorResponse('server_busy (Retry-After); rate_limit_unavailable; session_unavailable'),
    },
    invalid: { body: linkError },
    handle: async ({ body: { token, password } }, req, res) => {
      await signIn(req, res, await throttled(req, () => invitations.accept(token, password, clientAddress(req))));
    },
  });
}

function requestResetRoute({ resets, resetThrottle, origins }: LinkContext): Route {
  return defineRoute({
    endpoint: LINK_ENDPOINTS.requestPasswordReset,
    summary: 'Ask for a password-reset link by e-mail (only when SMTP_URL is set)',
    description:
      'Always 202 with the same body, whether or not the email has an account; the link (valid 2 hours) is e-mailed only to an existing account, and only while the address is under the mail limit (MAIL_LIMIT_PER_RECIPIENT an hour; over it nothing is sent, and the answer is the same). Limited like sign-in: 5 requests per email and 20 per client address in 15 minutes (429 with Retry-After), counted apart from sign-ins.',
    security: NO_AUTH,
    ok: 'Accepted (whether or not the email has an account)',
    responses: {
      400: errorResponse('invalid_request'),
      ...COMMON,
      429: errorResponse('Too many requests; wait Retry-After seconds'),
    },
    handle: async ({ body: { email } }, req, res) => {
      const ip = clientAddress(req);
      const gate = await resetThrottle.begin(email, ip);
      if (!gate.ok) throw new ContractError('rate_limited', { retryAfterSeconds: gate.retryAfterSeconds });
      // Every request counts, whatever becomes of it: the limit is on asking.
      gate.attempt.failed();
      resets.request(email, ip, origins.linkOrigin(req));
      res.status(202).json({ success: true, data: { mail_enabled: resets.mailEnabled } satisfies ResetRequestedData });
    },
  });
}

function resetRoute({ resets, throttled, signIn }: LinkContext): Route {
  return defineRoute({
    endpoint: LINK_ENDPOINTS.resetPassword,
    summary:
      'Set a new password with a reset link: every session of the account ends, on every instance, and this one is signed in',
    security: NO_AUTH,
    ok: SIGNED_IN_OK,
    responses: {
      400: errorResponse(BAD_LINK),
      ...COMMON,
      ...THROTTLED,
      503: errorResponse('server_busy; rate_limit_unavailable; session_unavailable'),
    },
    invalid: { body: linkError },
    handle: async ({ body: { token, password } }, req, res) => {
      await signIn(req, res, await throttled(req, () => resets.reset(token, password, clientAddress(req))));
    },
  });
}
