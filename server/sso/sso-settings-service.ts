import type {
  SsoConnectionRequest,
  SsoConnectionView,
  SsoProvider,
  SsoSettingsData,
  SsoSettingsRequest,
} from '../../shared/api/sso';
import { domainClaimRefusal } from '../../shared/domain/sso-domain-claims';
import type { AccountService } from '../accounts/account-service';
import { mustRecord, type AuditInput, type AuditRecorder } from '../audit/audit-log';
import type { Config } from '../config';
import { ContractError } from '../contract-error';
import { discoverIssuer } from './issuer-discovery';
import { parseCertificate } from './saml-certificate';
import type { SsoSettingsRecord, StoredSsoConnection } from './sso-records';
import type { SsoRepository } from './sso-repository';
import { requireSecrets, type SsoSecrets } from './sso-secrets';
import { oidcRedirectUri, samlServiceProvider } from './sso-urls';

/** The configuration single sign-on's settings depend on: which providers this server has. */
export type SsoServerConfig = Pick<Config, 'SSO_MICROSOFT_CLIENT_ID' | 'SSO_GOOGLE_CLIENT_ID' | 'SSO_ENCRYPTION_KEY'>;

/** Who changes the settings: an owner, with what the audit trail records of them (signedInActor). */
export interface SsoSettingsActor {
  accountId: string;
  organisationId: string;
  audit: Pick<AuditInput, 'source' | 'ip' | 'account_id' | 'email' | 'organisation_id'>;
}

export interface SsoSettingsDeps {
  repository: SsoRepository;
  secrets: SsoSecrets | null;
  accounts: AccountService;
  audit: AuditRecorder;
  config: SsoServerConfig;
  clock: () => Date;
  /** Reads an issuer's discovery document; the tests' identity providers are on loopback (issuer-discovery.ts). */
  discover?: (issuer: string) => Promise<string>;
}

/**
 * The providers this server can use: Microsoft and Google only with the operator's app (SSO_MICROSOFT_*,
 * SSO_GOOGLE_*), any OpenID Connect provider only when its client secret can be stored encrypted
 * (SSO_ENCRYPTION_KEY), SAML always.
 */
export function availableProviders(config: SsoServerConfig): SsoProvider[] {
  return [
    ...(config.SSO_MICROSOFT_CLIENT_ID ? (['microsoft'] as const) : []),
    ...(config.SSO_GOOGLE_CLIENT_ID ? (['google'] as const) : []),
    ...(config.SSO_ENCRYPTION_KEY ? (['oidc'] as const) : []),
    'saml' as const,
  ];
}

/**
 * An organisation's single sign-on settings as its owners set them (GET/PUT/DELETE /api/v1/organisation/sso): each
 * save checked whole before anything is stored — the provider offered here, the issuer's discovery document read, the
 * certificate parsed, each domain the owner's to claim — then stored with its audit event in one write. Secrets are
 * write-only: sealed at once (sso-secrets.ts), never answered, logged or audited.
 */
export class SsoSettingsService {
  private readonly discover: (issuer: string) => Promise<string>;

  constructor(private readonly deps: SsoSettingsDeps) {
    this.discover = deps.discover ?? ((issuer) => discoverIssuer(issuer));
  }

  async view(organisationId: string, origin: string): Promise<SsoSettingsData> {
    return this.data(await this.deps.repository.get(organisationId), origin);
  }

  async save(actor: SsoSettingsActor, request: SsoSettingsRequest, origin: string): Promise<SsoSettingsData> {
    const { repository, clock } = this.deps;
    const before = await repository.get(actor.organisationId);
    const connection = await this.connectionOf(actor.organisationId, request.connection, before);
    const domains = this.claimable(actor, request.domains, before);
    const record: SsoSettingsRecord = {
      organisation_id: actor.organisationId,
      connection,
      domains,
      default_role: request.default_role,
      require_sso: request.require_sso,
      updated_at: clock().toISOString(),
      updated_by: actor.audit.email ?? null,
    };
    await repository.put(
      record,
      mustRecord(this.deps.audit, this.event(actor, 'sso_settings_changed', connection.provider)),
    );
    return this.data(record, origin);
  }

  async remove(actor: SsoSettingsActor, origin: string): Promise<SsoSettingsData> {
    const removed = await this.deps.repository.remove(actor.organisationId, (was) =>
      mustRecord(this.deps.audit, this.event(actor, 'sso_settings_removed', was.connection.provider)),
    );
    if (!removed) throw new ContractError('sso_not_configured');
    return this.data(null, origin);
  }

  /** The connection as stored, from the request: checked against this server and the provider itself. */
  private async connectionOf(
    organisationId: string,
    request: SsoConnectionRequest,
    before: SsoSettingsRecord | null,
  ): Promise<StoredSsoConnection> {
    const offered = availableProviders(this.deps.config);
    switch (request.provider) {
      case 'microsoft':
      case 'google':
      case 'saml':
        if (!offered.includes(request.provider)) throw new ContractError('sso_provider_unavailable');
        break;
      case 'oidc':
        // Said as what is missing: the key, not the provider.
        if (!this.deps.secrets) throw new ContractError('sso_encryption_unavailable');
    }
    switch (request.provider) {
      case 'microsoft':
        return { provider: 'microsoft', tenant_id: request.tenant_id };
      case 'google':
        return { provider: 'google', domain: request.domain };
      case 'saml':
        return {
          provider: 'saml',
          idp_entity_id: request.idp_entity_id,
          sso_url: request.sso_url,
          certificate_pem: parseCertificate(request.certificate).pem,
        };
      case 'oidc': {
        const sealed = this.sealedSecret(organisationId, request, before);
        const issuer = await this.discover(request.issuer);
        return { provider: 'oidc', issuer, client_id: request.client_id, sealed_client_secret: sealed };
      }
    }
  }

  /**
   * The client secret sealed: the one sent, or the one stored when it is left out — only for the same client at the
   * same issuer (a secret is the client's: another client or issuer needs its own).
   */
  private sealedSecret(
    organisationId: string,
    request: Extract<SsoConnectionRequest, { provider: 'oidc' }>,
    before: SsoSettingsRecord | null,
  ): string {
    if (request.client_secret !== undefined) {
      return requireSecrets(this.deps.secrets).seal(request.client_secret, organisationId);
    }
    const was = before?.connection;
    const sameClient =
      was?.provider === 'oidc' &&
      was.client_id === request.client_id &&
      was.issuer.replace(/\/+$/, '') === request.issuer.replace(/\/+$/, '');
    if (!sameClient) throw new ContractError('sso_secret_required');
    return was.sealed_client_secret;
  }

  /** The domains, each once in the order given, when the owner may claim every one (domainClaimRefusal). */
  private claimable(actor: SsoSettingsActor, requested: readonly string[], before: SsoSettingsRecord | null): string[] {
    const account = this.deps.accounts.findById(actor.accountId);
    const verifiedEmail = account?.email_verified_at ? account.email : null;
    const held = new Set(before?.domains ?? []);
    const domains = [...new Set(requested)];
    const refusals = domains.map((domain) => ({ domain, refusal: domainClaimRefusal(domain, verifiedEmail, held) }));
    // A public domain is said first: no address of the owner's could make it claimable.
    for (const code of ['sso_public_domain', 'sso_domain_not_yours'] as const) {
      const refused = refusals.filter((r) => r.refusal === code).map((r) => r.domain);
      if (refused.length > 0) throw new ContractError(code, { details: refused });
    }
    return domains;
  }

  private event(
    actor: SsoSettingsActor,
    event: 'sso_settings_changed' | 'sso_settings_removed',
    provider: SsoProvider,
  ) {
    return { event, ...actor.audit, organisation_id: actor.organisationId, sso_provider: provider };
  }

  private data(record: SsoSettingsRecord | null, origin: string): SsoSettingsData {
    return {
      settings: record && {
        connection: connectionView(record, origin),
        domains: record.domains,
        default_role: record.default_role,
        require_sso: record.require_sso,
        updated_at: record.updated_at,
        updated_by: record.updated_by,
      },
      server: { providers: availableProviders(this.deps.config), oidc_redirect_uri: oidcRedirectUri(origin) },
    };
  }
}

/** The connection as answered: never the secret (whether one is set), the certificate by fingerprint and expiry. */
function connectionView({ organisation_id, connection }: SsoSettingsRecord, origin: string): SsoConnectionView {
  switch (connection.provider) {
    case 'microsoft':
    case 'google':
      return connection;
    case 'oidc':
      return {
        provider: 'oidc',
        issuer: connection.issuer,
        client_id: connection.client_id,
        client_secret_set: connection.sealed_client_secret !== '',
      };
    case 'saml': {
      const certificate = parseCertificate(connection.certificate_pem);
      return {
        provider: 'saml',
        idp_entity_id: connection.idp_entity_id,
        sso_url: connection.sso_url,
        certificate_fingerprint: certificate.fingerprint,
        certificate_expires_at: certificate.expiresAt,
        service_provider: samlServiceProvider(origin, organisation_id),
      };
    }
  }
}
