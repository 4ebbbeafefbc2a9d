import { Router, type Request, type Response } from 'express';
import { MIN_PASSWORD_LENGTH, SessionData } from '../../shared/api/auth';
import { successEnvelope } from '../../shared/api/envelope';
import {
  InvitationPreview,
  ResetRequest,
  ResetRequestedData,
  TokenPasswordRequest,
  TokenRequest,
} from '../../shared/api/invitations';
import type { Account, Member } from '../accounts/account-store';
import type { LoginThrottle } from '../auth/login-throttle';
import { sessionViewer, startSession, type SessionViewDeps } from '../auth/session-view';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { jsonBody } from '../http/json-body';
import { methodNotAllowed } from '../http/method-not-allowed';
import { errorResponse, jsonRequestBody, jsonResponse, NO_AUTH, type ApiRegistry } from '../http/openapi-registry';
import { withValidBody, type ErrorFor } from '../http/validate-request';
import type { OriginPolicy } from '../sessions/origin-policy';
import { InvitationError, type InvitationService } from './invitation-service';
import { PasswordResetError, type PasswordResetService } from './password-reset-service';
import { linkUse } from './link-throttle';
import { rethrowLinkError } from './team-invitations-router';

export interface LinkRoutersDeps extends SessionViewDeps {
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

/** What a link's use refuses with, besides the link rules' own errors. */
function refusal(err: unknown): never {
  return rethrowLinkError(err);
}

/**
 * The pages a link opens (no session needed; behind the cookie session all the same, so the Origin rules apply to a
 * browser that has one): /api/v1/invitations (lookup, accept) and /api/v1/auth/password-reset (request, reset).
 * Accepting an invitation or resetting a password signs the person in as POST /api/v1/auth/login does.
 */
export function linkRouters(deps: LinkRoutersDeps): { invitations: Router; passwordReset: Router } {
  const { invitations, resets, origins, resetThrottle, linkThrottle } = deps;
  const sessionView = sessionViewer(deps);
  const signIn = async (req: Request, res: Response, { account, member }: { account: Account; member: Member }) => {
    await startSession(req, account.id);
    res.json({ success: true, data: (await sessionView(req, { account, member })) satisfies SessionData });
  };

  const throttled = linkUse(
    linkThrottle,
    (err) => err instanceof InvitationError || err instanceof PasswordResetError,
    refusal,
  );

  const lookup = withValidBody(TokenRequest, linkError, async ({ token }, req, res) => {
    const preview = await throttled(req, async () => invitations.lookup(token));
    res.json({ success: true, data: preview satisfies InvitationPreview });
  });

  const accept = withValidBody(TokenPasswordRequest, linkError, async ({ token, password }, req, res) => {
    await signIn(req, res, await throttled(req, () => invitations.accept(token, password, clientAddress(req))));
  });

  const request = withValidBody(
    ResetRequest,
    () => 'invalid_request',
    async ({ email }, req, res) => {
      const ip = clientAddress(req);
      const gate = await resetThrottle.begin(email, ip);
      if (!gate.ok) throw new ContractError('rate_limited', { retryAfterSeconds: gate.retryAfterSeconds });
      // Every request counts, whatever becomes of it: the limit is on asking.
      gate.attempt.failed();
      resets.request(email, ip, origins.linkOrigin(req));
      res.status(202).json({ success: true, data: { mail_enabled: resets.mailEnabled } satisfies ResetRequestedData });
    },
  );

  const reset = withValidBody(TokenPasswordRequest, linkError, async ({ token, password }, req, res) => {
    await signIn(req, res, await throttled(req, () => resets.reset(token, password, clientAddress(req))));
  });

  const invitationsRouter = Router();
  invitationsRouter.post('/lookup', jsonBody, lookup);
  invitationsRouter.all('/lookup', methodNotAllowed('POST'));
  invitationsRouter.post('/accept', jsonBody, accept);
  invitationsRouter.all('/accept', methodNotAllowed('POST'));

  const passwordReset = Router();
  passwordReset.post('/', jsonBody, reset);
  passwordReset.all('/', methodNotAllowed('POST'));
  passwordReset.post('/request', jsonBody, request);
  passwordReset.all('/request', methodNotAllowed('POST'));
  return { invitations: invitationsRouter, passwordReset };
}

/** Lookup, accept and the password reset in the OpenAPI document (issue #26). */
export function registerLinkPaths(registry: ApiRegistry): void {
  const SIGNED_IN = jsonResponse(successEnvelope(SessionData), 'Signed in (a new session cookie), as after sign-in');
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
  registry.registerPath({
    method: 'post',
    path: '/api/v1/invitations/lookup',
    summary: 'What an invitation link is for: the organisation, the email and the role',
    security: NO_AUTH,
    request: jsonRequestBody(TokenRequest),
    responses: {
      200: jsonResponse(successEnvelope(InvitationPreview), 'The pending invitation'),
      400: errorResponse('invalid_link: unknown, used, revoked or expired link, or its sender may no longer send it'),
      409: errorResponse('account_exists: the email has an account (sign in with it instead)'),
      ...COMMON,
      ...THROTTLED,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/invitations/accept',
    summary: 'Accept an invitation: the account is created with the invited role and signed in; the link is used up',
    security: NO_AUTH,
    request: jsonRequestBody(TokenPasswordRequest),
    responses: {
      200: SIGNED_IN,
      400: errorResponse(BAD_LINK),
      409: errorResponse('account_exists: the email has an account (sign in with it instead)'),
      ...COMMON,
      ...THROTTLED,
      503: errorResponse('server_busy (Retry-After); rate_limit_unavailable; session_unavailable'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/auth/password-reset/request',
    summary: 'Ask for a password-reset link by e-mail (only when SMTP_URL is set)',
    description:
      'Always 202 with the same body, whether or not the email has an account; the link (valid 2 hours) is e-mailed only to an existing account, and only while the address is under the mail limit (MAIL_LIMIT_PER_RECIPIENT an hour; over it nothing is sent, and the answer is the same). Limited like sign-in: 5 requests per email and 20 per client address in 15 minutes (429 with Retry-After), counted apart from sign-ins.',
    security: NO_AUTH,
    request: jsonRequestBody(ResetRequest),
    responses: {
      202: jsonResponse(successEnvelope(ResetRequestedData), 'Accepted (whether or not the email has an account)'),
      400: errorResponse('invalid_request'),
      ...COMMON,
      429: errorResponse('Too many requests; wait Retry-After seconds'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/auth/password-reset',
    summary:
      'Set a new password with a reset link: every session of the account ends, on every instance, and this one is signed in',
    security: NO_AUTH,
    request: jsonRequestBody(TokenPasswordRequest),
    responses: {
      200: SIGNED_IN,
      400: errorResponse(BAD_LINK),
      ...COMMON,
      ...THROTTLED,
      503: errorResponse('server_busy; rate_limit_unavailable; session_unavailable'),
    },
  });
}
