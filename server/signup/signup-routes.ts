import type { Request, RequestHandler, Response } from 'express';
import { successEnvelope } from '../../shared/api/envelope';
import {
  EmailVerifiedData,
  SIGNUP_ENDPOINTS,
  SignupAcceptedData,
  type SignupSettingsData,
} from '../../shared/api/signup';
import type { LoginThrottle } from '../auth/login-throttle';
import { promisify, type SessionViewDeps } from '../auth/session-view';
import { signupEnabled, stripeSettings, type Config } from '../config';
import { ContractError, isContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { errorResponse, jsonResponse, NO_AUTH, SESSION_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { linkError } from '../invitations/link-routes';
import { linkUse } from '../invitations/link-throttle';
import type { OriginPolicy } from '../sessions/origin-policy';
import { requireSession, signedInAccount, signedInMember } from '../sessions/require-session';
import { clearSessionCookie } from '../sessions/session-cookie';
import '../sessions/session-types';
import type { SignupService } from './signup-service';

export interface SignupRoutesDeps extends SessionViewDeps {
  config: Config;
  signup: SignupService;
  origins: OriginPolicy;
  /** The links' throttle (invitations/link-throttle.ts): a verification link is guessed no faster than the others. */
  linkThrottle: LoginThrottle;
}

const FORBIDDEN_ORIGIN = { 403: errorResponse('forbidden_origin: a session cookie sent from another site') };
const BODY_REFUSALS = {
  413: errorResponse('Request body over 10 kB'),
  415: errorResponse('Content-Type is not application/json'),
};

/**
 * /api/v1/signup (issue #27): the settings the console's sign-up page reads, the sign-up itself (which signs nobody
 * in: the new owner signs in with the password chosen), the verification link's use and a new link for the signed-in
 * owner. Behind the cookie session, so the Origin rules apply as to sign-in.
 */
export function signupRoutes(deps: SignupRoutesDeps): Route[] {
  return [settingsRoute(deps), signupRoute(deps), verifyEmailRoute(deps), resendRoute(deps)];
}

function settingsRoute({ config, signup }: SignupRoutesDeps): Route {
  const settings: SignupSettingsData = {
    enabled: signupEnabled(config),
    billing: stripeSettings(config) ? 'stripe' : 'operator',
    email_verification: signup.mailEnabled,
    operator_contact: config.OPERATOR_CONTACT ?? null,
  };
  return defineRoute({
    endpoint: SIGNUP_ENDPOINTS.settings,
    summary: 'Whether sign-up is on (SIGNUP), how subscriptions are paid for, and who runs the service',
    security: NO_AUTH,
    ok: 'The sign-up settings',
    handle: (_input, _req, res) => {
      res.json({ success: true, data: settings });
    },
  });
}

/**
 * Ends whatever session the browser had, as sign-out does: sign-up signs nobody in (a new owner signs in once the
 * account is made), so what the browser holds afterwards does not depend on whether the address had an account.
 */
async function endSession(req: Request, res: Response): Promise<void> {
  if (req.session) await promisify((done) => req.session.destroy(done));
  clearSessionCookie(req, res);
}

function signupRoute({ config, signup, origins }: SignupRoutesDeps): Route {
  const enabled = signupEnabled(config);
  // Checked before the body is read: switched off, every sign-up gets the one answer whatever it sends.
  const whenEnabled: RequestHandler = (_req, _res, next) =>
    next(enabled ? undefined : new ContractError('signup_disabled'));
  return defineRoute({
    endpoint: SIGNUP_ENDPOINTS.signup,
    summary: 'Sign up a practice: its organisation (inactive subscription) and its owner, who then signs in',
    description:
      'Always 202 with the same body, in the same time, whether or not the email has an account, so the answer tells nobody which addresses have one; the browser is signed out either way (any session it had ends, no new one starts). The work that differs is done after the answer: a new address gets its account and organisation, and with SMTP_URL a link to confirm the address (valid 3 days) by e-mail; the owner signs in with POST /api/v1/auth/login. An address with an account changes nothing, and with SMTP_URL is told by e-mail how to sign in or reset its password. Limited like sign-in: 5 sign-ups per email and 20 per client address in 15 minutes (429 with Retry-After), counted apart from sign-ins.',
    security: NO_AUTH,
    gates: [whenEnabled],
    ok: 'Accepted (whether or not the email has an account)',
    responses: {
      400: errorResponse('weak_password (under 10 characters); invalid_request; invalid_json'),
      403: errorResponse('signup_disabled (SIGNUP=off); forbidden_origin: a session cookie sent from another site'),
      ...BODY_REFUSALS,
      429: errorResponse('Too many sign-ups; wait Retry-After seconds'),
      503: errorResponse('server_busy (Retry-After); rate_limit_unavailable; session_unavailable'),
    },
    invalid: { body: linkError },
    handle: async ({ body }, req, res) => {
      await signup.signUp(body, clientAddress(req), origins.linkOrigin(req));
      await endSession(req, res);
      const data: SignupAcceptedData = {
        email: body.email,
        verification: signup.mailEnabled ? 'sent' : 'not_configured',
      };
      res.status(202).json({ success: true, data });
    },
  });
}

function verifyEmailRoute({ signup, linkThrottle }: SignupRoutesDeps): Route {
  const verifyLink = linkUse(linkThrottle, (err) => isContractError(err, 'invalid_link'));
  return defineRoute({
    endpoint: SIGNUP_ENDPOINTS.verifyEmail,
    summary: "Confirm an account's e-mail address with the link's token; the link is used up",
    security: NO_AUTH,
    ok: 'The address is confirmed',
    responses: {
      400: errorResponse('invalid_link: unknown, used or expired link; invalid_request'),
      ...FORBIDDEN_ORIGIN,
      ...BODY_REFUSALS,
      429: errorResponse(
        'Too many refused links from this client address (20 in 15 minutes, counted with invitation and reset links); wait Retry-After seconds',
      ),
    },
    invalid: { body: linkError },
    handle: async ({ body: { token } }, req, res) => {
      const data = await verifyLink(req, () => signup.verify(token, clientAddress(req)));
      res.json({ success: true, data: data satisfies EmailVerifiedData });
    },
  });
}

/**
 * The endpoint's data is either answer, as a client reads it; the document gives each status its own: 202 a new link
 * (or none: no e-mail here), 200 the proof's time when the address was confirmed already.
 */
function resendRoute({ signup, origins, accounts }: SignupRoutesDeps): Route {
  return defineRoute({
    endpoint: SIGNUP_ENDPOINTS.resendVerification,
    summary: "E-mail a new link to confirm the signed-in account's address (the old link stops working)",
    description:
      '202 sent (SMTP_URL set) or not_configured (nothing sent); 200 with the time of the proof when the address is confirmed already. Limited like sign-in per email and client address (429 with Retry-After).',
    security: SESSION_AUTH,
    // A gate rather than `authenticate`: a wrong method is told 405 whether or not it is signed in.
    gates: [requireSession(accounts)],
    ok: {
      description: 'A new link is on its way (or not_configured: this server sends no e-mail)',
      content: { 'application/json': { schema: successEnvelope(SignupAcceptedData) } },
    },
    responses: {
      200: jsonResponse(successEnvelope(EmailVerifiedData), 'The address is confirmed already: nothing is sent'),
      401: errorResponse('unauthenticated'),
      ...FORBIDDEN_ORIGIN,
      429: errorResponse('Too many requests; wait Retry-After seconds'),
    },
    handle: async (_input, req, res) => {
      const account = signedInAccount(res);
      const { organisation_id } = signedInMember(res);
      const outcome = await signup.resend(account, organisation_id, clientAddress(req), origins.linkOrigin(req));
      if (outcome.kind === 'already_verified') {
        const data: EmailVerifiedData = { email: account.email, verified_at: outcome.verified_at };
        res.json({ success: true, data });
        return;
      }
      const data: SignupAcceptedData = { email: account.email, verification: outcome.kind };
      res.status(202).json({ success: true, data });
    },
  });
}
