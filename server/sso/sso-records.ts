import { z } from 'zod';
import { SsoDefaultRole } from '../../shared/api/sso';

/**
 * An organisation's connection as stored: what the owner entered, the OpenID Connect client secret sealed
 * (sso-secrets.ts: never in clear at rest) and the SAML certificate as PEM.
 */
export const StoredSsoConnection = z.discriminatedUnion('provider', [
  z.object({ provider: z.literal('microsoft'), tenant_id: z.string() }),
  z.object({ provider: z.literal('google'), domain: z.string() }),
  z.object({
    provider: z.literal('oidc'),
    issuer: z.string(),
    client_id: z.string(),
    /** SsoSecrets.seal's output: `v1.<iv>.<tag>.<ciphertext>`, bound to the organisation. */
    sealed_client_secret: z.string(),
  }),
  z.object({
    provider: z.literal('saml'),
    idp_entity_id: z.string(),
    sso_url: z.string(),
    certificate_pem: z.string(),
  }),
]);
export type StoredSsoConnection = z.infer<typeof StoredSsoConnection>;

/** One organisation's single sign-on settings (at most one record per organisation). */
export const SsoSettingsRecord = z.object({
  organisation_id: z.string(),
  connection: StoredSsoConnection,
  /** Lower case; each claimed by this organisation only (PostgreSQL: sso_domains' primary key). */
  domains: z.array(z.string()),
  default_role: SsoDefaultRole,
  require_sso: z.boolean(),
  updated_at: z.string(),
  /** The e-mail of the owner who saved them last; null when the operator did. */
  updated_by: z.string().nullable(),
});
export type SsoSettingsRecord = z.infer<typeof SsoSettingsRecord>;

/**
 * Someone the team removed from an organisation, by e-mail (their account is gone with the removal): single sign-on
 * refuses them until they accept a new invitation to it.
 */
export const SsoDeparture = z.object({ organisation_id: z.string(), email: z.string(), removed_at: z.string() });
export type SsoDeparture = z.infer<typeof SsoDeparture>;

/** DATA_DIR/sso.json. */
export const SsoFile = z.object({ settings: z.array(SsoSettingsRecord), departures: z.array(SsoDeparture) });
export type SsoFile = z.infer<typeof SsoFile>;
