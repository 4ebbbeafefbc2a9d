import type { z } from 'zod';
import type { SamlServiceProvider } from '../../shared/api/sso';

export type SamlServiceProviderValues = z.infer<typeof SamlServiceProvider>;

/** The ACS every organisation's IdP posts to: one URL, the response's InResponseTo names the flow and so the organisation. */
export const SAML_ACS_PATH = '/api/v1/auth/sso/saml/acs';

/**
 * What this service is to one organisation's SAML IdP: its entity ID (the audience its assertions must name), where
 * they are posted, and its metadata. The entity ID is the metadata URL, per organisation, so an assertion an IdP
 * issued for one organisation is never accepted for another. The Single sign-on page shows these same values and the
 * ACS checks against them: both call this.
 */
export function samlServiceProvider(origin: string, organisationId: string): SamlServiceProviderValues {
  const metadataUrl = `${origin}/api/v1/auth/sso/saml/${encodeURIComponent(organisationId)}/metadata`;
  return { entity_id: metadataUrl, acs_url: `${origin}${SAML_ACS_PATH}`, metadata_url: metadataUrl };
}
