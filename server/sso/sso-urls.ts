import { SSO_ENDPOINTS, SSO_ERROR_PARAM, type SsoErrorParam } from '../../shared/api/sso';

/**
 * The service's own single sign-on addresses, at the public origin links use (OriginPolicy.linkOrigin): what an owner
 * registers with their provider, and what the OIDC and SAML sign-in check answers against. One place, so that the
 * settings page shows exactly what sign-in uses.
 */

/** The redirect URI an OpenID Connect provider sends the browser back to (Microsoft, Google and any OIDC). */
export function oidcRedirectUri(origin: string): string {
  return `${origin}${SSO_ENDPOINTS.callback.path}`;
}

/** What a SAML IdP is told of us for `organisationId`: its entity ID (the audience) is its metadata URL. */
export function samlServiceProvider(
  origin: string,
  organisationId: string,
): { entity_id: string; acs_url: string; metadata_url: string } {
  const metadata = `${origin}${SSO_ENDPOINTS.samlMetadata.path.replace('{organisation_id}', encodeURIComponent(organisationId))}`;
  return { entity_id: metadata, acs_url: `${origin}${SSO_ENDPOINTS.samlAcs.path}`, metadata_url: metadata };
}

/** Where the console shows a refused or interrupted single sign-on: its sign-in page, which every signed-out route is. */
export function consoleErrorPath(code: SsoErrorParam): string {
  return `/console/?${SSO_ERROR_PARAM}=${code}`;
}
