import type { SsoDefaultRole, SsoProvider } from '../../shared/api/sso';

/**
 * One organisation's single sign-on as signing in needs it: who its provider is, with the secrets decrypted (they live
 * only in memory, never in a log or an answer), which e-mail domains it claims, and its rules.
 */
export interface SsoConnection {
  organisationId: string;
  provider: SsoProvider;
  /** Microsoft Entra ID: the organisation's directory (tenant) ID; a token's `tid` must be it. */
  microsoft?: { tenantId: string };
  /** Google Workspace: the organisation's Workspace domain; a token's `hd` must be it. */
  google?: { domain: string };
  /** Any OpenID Connect provider: its issuer (discovery), and the organisation's client there. */
  oidc?: { issuer: string; clientId: string; clientSecret: string };
  /** SAML 2.0: the IdP's entity ID, its single sign-on URL and the certificate its assertions are signed with (PEM). */
  saml?: { idpEntityId: string; ssoUrl: string; certificatePem: string };
  /** Lower-case e-mail domains whose addresses sign in here (each claimed by this organisation only). */
  domains: readonly string[];
  defaultRole: SsoDefaultRole;
  requireSso: boolean;
}

/**
 * Where sign-in finds an organisation's single sign-on: by an address's domain (the sign-in page's e-mail-first step)
 * or by the organisation (a callback names it through the flow it started). Read from the shared storage on every
 * call, so an owner's change on one instance holds on all of them at once.
 */
export interface SsoDirectory {
  /** The connection of the organisation that claims `domain` (lower case), if any. */
  forDomain(domain: string): Promise<SsoConnection | undefined>;
  forOrganisation(organisationId: string): Promise<SsoConnection | undefined>;
  /**
   * Whether `email` was removed from `organisationId`'s team and not invited again since: such a person is refused
   * by single sign-on (sso_member_removed) instead of joining again on their own.
   */
  wasRemoved(organisationId: string, email: string): Promise<boolean>;
}
