import { normaliseEmailAddress } from '../../shared/domain/text-hygiene';
import { ContractError } from '../contract-error';
import type { Logger } from '../logger';
import type { SsoConnection, SsoDirectory } from './sso-directory';
import type { SsoSettingsRecord } from './sso-records';
import type { SsoRepository } from './sso-repository';
import type { SsoSecrets } from './sso-secrets';

/**
 * The SsoDirectory over the stored settings (SsoRepository: sso.json, or PostgreSQL's rows read on every call), with
 * the OpenID Connect client secret opened in memory for sign-in alone.
 */
export class StoredSsoDirectory implements SsoDirectory {
  constructor(
    private readonly repository: SsoRepository,
    private readonly secrets: SsoSecrets | null,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  async forDomain(domain: string): Promise<SsoConnection | undefined> {
    const record = await this.repository.byDomain(domain.trim().toLowerCase());
    return record ? this.connectionOf(record) : undefined;
  }

  async forOrganisation(organisationId: string): Promise<SsoConnection | undefined> {
    const record = await this.repository.get(organisationId);
    return record ? this.connectionOf(record) : undefined;
  }

  wasRemoved(organisationId: string, email: string): Promise<boolean> {
    return this.repository.wasRemoved(organisationId, normaliseEmailAddress(email));
  }

  /**
   * The connection sign-in works with. A client secret that cannot be opened (SSO_ENCRYPTION_KEY unset or changed
   * since it was saved) makes the connection unusable: sso_misconfigured, and the operator told why in the log (the
   * owner saves the secret again to mend it).
   */
  private connectionOf(record: SsoSettingsRecord): SsoConnection {
    const { organisation_id: organisationId, connection } = record;
    const common = {
      organisationId,
      provider: connection.provider,
      domains: record.domains,
      defaultRole: record.default_role,
      requireSso: record.require_sso,
    };
    switch (connection.provider) {
      case 'microsoft':
        return { ...common, microsoft: { tenantId: connection.tenant_id } };
      case 'google':
        return { ...common, google: { domain: connection.domain } };
      case 'saml':
        return {
          ...common,
          saml: {
            idpEntityId: connection.idp_entity_id,
            ssoUrl: connection.sso_url,
            certificatePem: connection.certificate_pem,
          },
        };
      case 'oidc':
        return {
          ...common,
          oidc: {
            issuer: connection.issuer,
            clientId: connection.client_id,
            clientSecret: this.opened(connection.sealed_client_secret, organisationId),
          },
        };
    }
  }

  private opened(sealed: string, organisationId: string): string {
    try {
      if (!this.secrets) throw new Error('SSO_ENCRYPTION_KEY is not set');
      return this.secrets.open(sealed, organisationId);
    } catch (err) {
      this.logger.error(
        { organisation_id: organisationId, reason: (err as Error).message },
        "an organisation's OpenID Connect client secret cannot be opened: set the SSO_ENCRYPTION_KEY it was saved under, or have its owner save the secret again",
      );
      throw new ContractError('sso_misconfigured');
    }
  }
}
