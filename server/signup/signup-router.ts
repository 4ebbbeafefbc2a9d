import { linkError } from '../invitations/link-routes';
import { rethrowBusy } from '../auth/busy-refusal';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { successEnvelope } from '../../shared/api/envelope';
import {
  EmailVerifiedData,
  SignupAcceptedData,
  SignupRequest,
  SignupSettingsData,
  VerifyEmailRequest,
} from '../../shared/api/signup';
import { promisify, type SessionViewDeps } from '../auth/session-view';
import { signupEnabled, stripeSettings, type Config } from '../config';
import { ContractError, isContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { jsonBody } from '../http/json-body';
import { methodNotAllowed } from '../http/method-not-allowed';
import {
  errorResponse,
  jsonRequestBody,
  jsonResponse,
  NO_AUTH,
  SESSION_AUTH,
  type ApiRegistry,
} from '../http/openapi-registry';
import { withValidBody } from '../http/validate-request';
import type { OriginPolicy } from '../sessions/origin-policy';
import { requireSession, signedInAccount, signedInMember } from '../sessions/require-session';
import { clearSessionCookie } from '../sessions/session-cookie';
import '../sessions/session-types';
import { SignupError, type SignupService } from './signup-service';
import { linkUse } from '../invitations/link-throttle';
import type { LoginThrottle } from '../auth/login-throttle';

export interface SignupRouterDeps extends SessionViewDeps {
  config: Config;
  signup: SignupService;
  origins: OriginPolicy;
  /** The links' throttle (invitations/link-throttle.ts): a verification link is guessed no faster than the others. */
  linkThrottle: LoginThrottle;
}

/** What the service refuses with, as the contract's errors. */
function refusal(err: unknown): never {
  if (err instanceof SignupError) {
    if (err.code === 'rate_limited') {
      throw new ContractError('rate_limited', { retryAfterSeconds: err.retryAfterSeconds });
    }
    throw new ContractError('invalid_link');
  }
  return rethrowBusy(err);
}

/**
 * Ends whatever session the browser had, as sign-out does: sign-up signs nobody in (a new owner signs in once the
 * account is made), so what the browser holds afterwards does not depend on whether the address had an account.
 */
async function endSession(req: Request, res: Response): Promise<void> {
  if (req.session) await promisify((done) => req.session.destroy(done));
  clearSessionCookie(req, res);
}

/**
 * /api/v1/signup (issue #27): the settings the console's sign-up page reads, the sign-up itself (which signs nobody
 * in: the new owner signs in with the password chosen), the verification link's use and a new link for the signed-in
 * owner.
 * Behind the cookie session, so the Origin rules apply as to sign-in.
 */
export function signupRouter(deps: SignupRouterDeps): Router {
  const { signup, origins, accounts, config } = deps;
  const verifyLink = linkUse(
    deps.linkThrottle,
    (err) => (err instanceof SignupError && err.code === 'invalid_link') || isContractError(err, 'invalid_link'),
    refusal,
  );
  const enabled = signupEnabled(config);
  const settings: SignupSettingsData = {
    enabled,
    billing: stripeSettings(config) ? 'stripe' : 'operator',
    email_verification: signup.mailEnabled,
    operator_contact: config.OPERATOR_CONTACT ?? null,
  };

  // Checked before the body is read: switched off, every sign-up gets the one answer whatever it sends.
  const whenEnabled: RequestHandler = (_req, _res, next) =>
    next(enabled ? undefined : new ContractError('signup_disabled'));

  const create = withValidBody(SignupRequest, linkError, async (request, req, res) => {
    await signup.signUp(request, clientAddress(req), origins.linkOrigin(req)).catch(refusal);
    await endSession(req, res);
    const data: SignupAcceptedData = {
      email: request.email,
      verification: signup.mailEnabled ? 'sent' : 'not_configured',
    };
    res.status(202).json({ success: true, data });
  });

  const verify = withValidBody(VerifyEmailRequest, linkError, async ({ token }, req, res) => {
    const data = await verifyLink(req, () => signup.verify(token, clientAddress(req)));
    res.json({ success: true, data: data satisfies EmailVerifiedData });
  });

  const resend: RequestHandler = async (req, res) => {
    const account = signedInAccount(res);
    const { organisation_id } = signedInMember(res);
    const outcome = await signup
      .resend(account, organisation_id, clientAddress(req), origins.linkOrigin(req))
      .catch(refusal);
    if (outcome.kind === 'already_verified') {
      res.json({ success: true, data: { email: account.email, verified_at: outcome.verified_at } });
      return;
    }
    res.status(202).json({ success: true, data: { email: account.email, verification: outcome.kind } });
  };

  const router = Router();
  router.get('/', (_req, res) => {
    res.json({ success: true, data: settings });
  });
  router.post('/', whenEnabled, jsonBody, create);
  router.all('/', methodNotAllowed('GET, POST'));
  router.post('/verify-email', jsonBody, verify);
  router.all('/verify-email', methodNotAllowed('POST'));
  router.post('/verification', requireSession(accounts), resend);
  router.all('/verification', methodNotAllowed('POST'));
  return router;
}

/** Sign-up and e-mail verification in the OpenAPI document. */
export function registerSignupPaths(registry: ApiRegistry): void {
  const accepted = (description: string) => jsonResponse(successEnvelope(SignupAcceptedData), description);
  const COMMON = {
    403: errorResponse('forbidden_origin: a session cookie sent from another site'),
    413: errorResponse('Request body over 10 kB'),
    415: errorResponse('Content-Type is not application/json'),
  };
  registry.registerPath({
    method: 'get',
    path: '/api/v1/signup',
    summary: 'Whether sign-up is on (SIGNUP), how subscriptions are paid for, and who runs the service',
    security: NO_AUTH,
    responses: { 200: jsonResponse(successEnvelope(SignupSettingsData), 'The sign-up settings') },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/signup',
    summary: 'Sign up a practice: its organisation (inactive subscription) and its owner, who then signs in',
    description:
      'Always 202 with the same body, in the same time, whether or not the email has an account, so the answer tells nobody which addresses have one; the browser is signed out either way (any session it had ends, no new one starts). The work that differs is done after the answer: a new address gets its account and organisation, and with SMTP_URL a link to confirm the address (valid 3 days) by e-mail; the owner signs in with POST /api/v1/auth/login. An address with an account changes nothing, and with SMTP_URL is told by e-mail how to sign in or reset its password. Limited like sign-in: 5 sign-ups per email and 20 per client address in 15 minutes (429 with Retry-After), counted apart from sign-ins.',
    security: NO_AUTH,
    request: jsonRequestBody(SignupRequest),
    responses: {
      202: accepted('Accepted (whether or not the email has an account)'),
      400: errorResponse('weak_password (under 10 characters); invalid_request; invalid_json'),
      403: errorResponse('signup_disabled (SIGNUP=off); forbidden_origin: a session cookie sent from another site'),
      413: COMMON[413],
      415: COMMON[415],
      429: errorResponse('Too many sign-ups; wait Retry-After seconds'),
      503: errorResponse('server_busy (Retry-After); rate_limit_unavailable; session_unavailable'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/signup/verify-email',
    summary: "Confirm an account's e-mail address with the link's token; the link is used up",
    security: NO_AUTH,
    request: jsonRequestBody(VerifyEmailRequest),
    responses: {
      200: jsonResponse(successEnvelope(EmailVerifiedData), 'The address is confirmed'),
      400: errorResponse('invalid_link: unknown, used or expired link; invalid_request'),
      ...COMMON,
      429: errorResponse(
        'Too many refused links from this client address (20 in 15 minutes, counted with invitation and reset links); wait Retry-After seconds',
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/signup/verification',
    summary: "E-mail a new link to confirm the signed-in account's address (the old link stops working)",
    description:
      '202 sent (SMTP_URL set) or not_configured (nothing sent); 200 with the time of the proof when the address is confirmed already. Limited like sign-in per email and client address (429 with Retry-After).',
    security: SESSION_AUTH,
    responses: {
      200: jsonResponse(successEnvelope(EmailVerifiedData), 'The address is confirmed already: nothing is sent'),
      202: accepted('A new link is on its way (or not_configured: this server sends no e-mail)'),
      401: errorResponse('unauthenticated'),
      403: COMMON[403],
      429: errorResponse('Too many requests; wait Retry-After seconds'),
    },
  });
}
