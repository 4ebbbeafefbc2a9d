import type { Request, RequestHandler, Response } from 'express';
import { SSO_ENDPOINTS } from '../../shared/api/sso';
import type { AccountService } from '../accounts/account-service';
import { signedInActor } from '../activity/activity-actor';
import { errorResponse, SESSION_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import type { OriginPolicy } from '../sessions/origin-policy';
import { requireRole, requireSession, signedInAccount, signedInMember } from '../sessions/require-session';
import type { SsoSettingsActor, SsoSettingsService } from './sso-settings-service';

export interface SsoSettingsRoutesDeps {
  settings: SsoSettingsService;
  accounts: AccountService;
  /** The public origin the redirect URI and the SAML service provider's URLs are built on (linkOrigin). */
  origins: OriginPolicy;
}

/** A SAML certificate may be 20,000 characters; with the rest, well under this. */
const BODY_LIMIT_BYTES = 32 * 1024;

const OWNERS_ONLY = { 403: errorResponse('forbidden_role: only owners set up single sign-on; or forbidden_origin') };

const SETTINGS_OK =
  'The settings (null when not set up; never a secret: `client_secret_set` says whether one is stored) and the providers this server offers';

interface SsoContext extends SsoSettingsRoutesDeps {
  authenticate: RequestHandler;
  owners: RequestHandler;
}

/**
 * GET, PUT and DELETE /api/v1/organisation/sso (behind the cookie session, owners only): the organisation's single
 * sign-on settings.
 */
export function ssoSettingsRoutes(deps: SsoSettingsRoutesDeps): Route[] {
  const context: SsoContext = { ...deps, authenticate: requireSession(deps.accounts), owners: requireRole('owner') };
  return [readRoute(context), saveRoute(context), removeRoute(context)];
}

const actorOf = (req: Request, res: Response): SsoSettingsActor => ({
  accountId: signedInAccount(res).id,
  organisationId: signedInMember(res).organisation_id,
  audit: signedInActor(req, res),
});

function readRoute({ settings, origins, authenticate, owners }: SsoContext): Route {
  return defineRoute({
    endpoint: SSO_ENDPOINTS.settings,
    summary: "The organisation's single sign-on settings (owners)",
    description:
      'With what the owner registers at their provider: `server.oidc_redirect_uri` (OpenID Connect, Microsoft, Google) or `service_provider` (SAML: entity ID, ACS URL, metadata URL).',
    security: SESSION_AUTH,
    authenticate,
    gates: [owners],
    ok: SETTINGS_OK,
    responses: OWNERS_ONLY,
    handle: async (_input, req, res) => {
      const data = await settings.view(signedInMember(res).organisation_id, origins.linkOrigin(req));
      res.json({ success: true, data });
    },
  });
}

function saveRoute({ settings, origins, authenticate, owners }: SsoContext): Route {
  return defineRoute({
    endpoint: SSO_ENDPOINTS.saveSettings,
    summary: "Set up (or change) the organisation's single sign-on (owners)",
    description: [
      "Replaces the settings whole. Checked before anything is stored: the provider must be offered by this server (`server.providers`); an OpenID Connect issuer's discovery document is read now (https, public addresses only); the client secret is required the first time and kept when left out later for the same issuer and client; a SAML certificate must parse (PEM or its base64 body).",
      "Domains: a public mail domain (gmail.com, bigpond.com…) is never claimed; a domain the organisation already claims stays; any other must be exactly the domain of the saving owner's own verified e-mail address; a domain is claimed by one organisation only.",
      'Audited as `sso_settings_changed` (never the secret).',
    ].join(' '),
    security: SESSION_AUTH,
    authenticate,
    gates: [owners],
    bodyLimitBytes: BODY_LIMIT_BYTES,
    ok: SETTINGS_OK,
    responses: {
      400: errorResponse(
        'invalid_request / invalid_json; sso_provider_unavailable, sso_public_domain, sso_secret_required, sso_invalid_certificate, sso_invalid_issuer',
      ),
      403: errorResponse(
        'forbidden_role: only owners; sso_domain_not_yours: a domain is not that of your verified address (error.details lists them); or forbidden_origin',
      ),
      409: errorResponse('sso_domain_taken: another organisation claims a domain'),
      503: errorResponse(
        'sso_encryption_unavailable: SSO_ENCRYPTION_KEY is not set, so no client secret can be stored',
      ),
    },
    handle: async ({ body }, req, res) => {
      const data = await settings.save(actorOf(req, res), body, origins.linkOrigin(req));
      res.json({ success: true, data });
    },
  });
}

function removeRoute({ settings, origins, authenticate, owners }: SsoContext): Route {
  return defineRoute({
    endpoint: SSO_ENDPOINTS.removeSettings,
    summary: "Remove the organisation's single sign-on (owners)",
    description:
      'Its domains are released and every member signs in with their password again. Audited as `sso_settings_removed`.',
    security: SESSION_AUTH,
    authenticate,
    gates: [owners],
    ok: 'Nothing set up any more (`settings` null)',
    responses: { ...OWNERS_ONLY, 404: errorResponse('sso_not_configured: nothing to remove') },
    handle: async (_input, req, res) => {
      const data = await settings.remove(actorOf(req, res), origins.linkOrigin(req));
      res.json({ success: true, data });
    },
  });
}
