import type { SsoConnection } from './sso-directory';

/**
 * One way of asking a provider who someone is: OpenID Connect (Microsoft, Google, any OIDC provider) or SAML 2.0.
 * GET /api/v1/auth/sso/start picks the connection's protocol and sends the browser where `begin` says; the answer comes
 * back to that protocol's own endpoint (the OIDC callback, the SAML ACS), which ends in SsoSignInService.
 */
export interface SsoProtocol {
  /** How long a sign-in `begin` started may take to come back: the browser's binding cookie lives as long. */
  readonly flowTtlMs: number;
  /**
   * The provider's URL to send the browser to, having kept in the SsoFlowStore what checking its answer needs (state,
   * nonce and PKCE verifier; the AuthnRequest's ID). Throws ContractError('sso_idp_unreachable') when the provider's
   * configuration cannot be read, ContractError('sso_misconfigured') when the connection cannot work.
   *
   * `origin` is the public origin links use (OriginPolicy.linkOrigin): where the provider sends the browser back
   * (sso-urls.ts: the OIDC redirect URI, the SAML ACS). `binding` is the hash of the browser's binding cookie
   * (sso-binding.ts), kept in the flow: the answer counts only in the browser that started.
   */
  begin(connection: SsoConnection, returnTo: string, origin: string, binding: string): Promise<URL>;
}
