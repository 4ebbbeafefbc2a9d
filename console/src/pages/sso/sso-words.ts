import type { SsoDefaultRole, SsoProvider } from '../../../../shared/api/sso';
import type { AccountFailure } from '../../../../ui/api/account-result';

/** Each provider as an owner knows it. */
export const PROVIDER_NAMES: Record<SsoProvider, string> = {
  microsoft: 'Microsoft 365 (Entra ID)',
  google: 'Google Workspace',
  oidc: 'Another OpenID Connect provider (Okta, Auth0, Keycloak…)',
  saml: 'SAML 2.0 (ADFS, Okta, OneLogin, JumpCloud…)',
};

/**
 * Each field's label, keyed by the request's own field name: the form labels its fields with these, and a field the
 * contract refuses is named by the same words (requestOf).
 */
export const FIELD_LABELS = {
  tenant_id: 'Directory (tenant) ID',
  domain: 'Workspace domain',
  issuer: 'Issuer URL',
  client_id: 'Client ID',
  client_secret: 'Client secret',
  idp_entity_id: 'Identity provider entity ID',
  sso_url: 'Sign-on URL',
  certificate: 'Signing certificate',
  domains: 'E-mail domains',
} as const;

export const DEFAULT_ROLE_WORDS: Record<SsoDefaultRole, string> = { member: 'Member', admin: 'Admin' };

const listed = (details: string[] | undefined) => (details && details.length > 0 ? ` (${details.join(', ')})` : '');

/**
 * Why a save or a removal was refused, in words an owner can act on; undefined for what the console says the same
 * everywhere (consoleFailureWords).
 */
export function ssoFailureWords(failure: AccountFailure): string | undefined {
  switch (failure.code) {
    case 'sso_provider_unavailable':
      return 'This server is not set up for that provider: choose another, or ask whoever runs the server to add it.';
    case 'sso_public_domain':
      return `A public e-mail domain cannot be used${listed(failure.details)}: anyone can have an address there. List only your practice’s own domains.`;
    case 'sso_domain_not_yours':
      return `You can add only the domain of your own e-mail address, once it is verified${listed(failure.details)}. Another owner whose verified address is at that domain can add it.`;
    case 'sso_domain_taken':
      return 'Another organisation on this service already signs in with one of these domains. Remove it from the list, or ask whoever runs the service.';
    case 'sso_secret_required':
      return 'Enter the client secret your provider gave for this client.';
    case 'sso_invalid_certificate':
      return 'The signing certificate could not be read. Paste all of it, from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----, or the text between those lines.';
    case 'sso_invalid_issuer':
      return 'The provider’s OpenID Connect settings could not be read from that issuer URL. Check it: it is the address your provider calls the issuer, reachable from the internet over https.';
    case 'sso_encryption_unavailable':
      return 'This server cannot store client secrets yet (its SSO_ENCRYPTION_KEY is not set). Ask whoever runs the server.';
    case 'sso_not_configured':
      return 'Single sign-on is not set up (another owner may have removed it just now).';
    default:
      return undefined;
  }
}
