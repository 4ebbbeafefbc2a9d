import type { SsoProvider, SsoSettingsData } from '../../../../shared/api/sso';
import { CopyableValue } from './CopyableValue';

/** What the owner (or their IT provider) does at the provider, in a sentence. */
const AT_THE_PROVIDER: Record<SsoProvider, string> = {
  microsoft:
    'In the Microsoft Entra admin centre, copy your Directory (tenant) ID from Overview into this page. The first time someone signs in, Microsoft asks for consent to this service: a Global Administrator gives it once for the whole organisation.',
  google:
    'Nothing to register in the Google Admin console. If your Workspace restricts third-party apps (Security › Access and data control › API controls), mark this service as trusted there.',
  oidc: 'At your provider, register this service as a web application (authorization code flow) with the redirect URI below, then copy its issuer URL, client ID and client secret into this page.',
  saml: 'At your identity provider, create a SAML application with the entity ID and ACS URL below (or give it the metadata URL), have it sign its assertions and send the e-mail address, then copy its entity ID, sign-on URL and signing certificate into this page.',
};

/**
 * The provider's side of the set-up: what to do there and, for the practice's own provider, what to register (each
 * value with its Copy button). Microsoft's and Google's redirect URI is the operator's app's, registered once.
 */
export function RegisterWithProvider({
  provider,
  server,
}: {
  provider: SsoProvider;
  server: SsoSettingsData['server'];
}) {
  const sp = server.saml_service_provider;
  return (
    <div data-testid="sso-register">
      <h3>At your provider</h3>
      <p>{AT_THE_PROVIDER[provider]}</p>
      {provider === 'saml' && (
        <dl className="status">
          <CopyableValue label="Entity ID" value={sp.entity_id} testId="sso-sp-entity-id" />
          <CopyableValue label="ACS URL" value={sp.acs_url} testId="sso-sp-acs-url" />
          <CopyableValue label="Metadata URL" value={sp.metadata_url} testId="sso-sp-metadata-url" />
        </dl>
      )}
      {provider === 'oidc' && (
        <dl className="status">
          <CopyableValue label="Redirect URI" value={server.oidc_redirect_uri} testId="sso-redirect-uri" />
        </dl>
      )}
    </div>
  );
}
