import { normaliseEmailAddress } from '../../shared/domain/text-hygiene';
import { logFailures } from '../audit/audit-log';
import type { AccountData } from '../runtime-types';
import type { AlongsideWrite } from '../storage/document-store';
import { DocumentSso } from './document-sso';
import type { SsoDirectory } from './sso-directory';
import { ssoDocument } from './sso-document';
import type { SsoRepository } from './sso-repository';
import { SsoSecrets } from './sso-secrets';
import { SsoSettingsService } from './sso-settings-service';
import { StoredSsoDirectory } from './stored-sso-directory';

/**
 * The team's departures as single sign-on keeps them: written with a removal (TeamService.remove) and with the
 * acceptance of a new invitation (InvitationService.accept), in their own transactions.
 */
export interface SsoDepartures {
  departed(organisationId: string, email: string): AlongsideWrite;
  rejoined(organisationId: string, email: string): AlongsideWrite;
}

/** What the server has of single sign-on (`runtime.sso`). */
export interface SsoRuntime {
  /** What sign-in reads: an organisation's connection by domain or by ID, secrets opened; who was removed. */
  directory: SsoDirectory;
  /** GET/PUT/DELETE /api/v1/organisation/sso. */
  settings: SsoSettingsService;
  departures: SsoDepartures;
}

/** The settings' store on the configured backend: PostgreSQL's rows (read per call), else DATA_DIR/sso.json. */
export async function openSsoRepository(storage: AccountData['storage']): Promise<SsoRepository> {
  if (storage.database) {
    const { PostgresSso } = await import('./postgres-sso');
    return new PostgresSso(storage.database.pool);
  }
  return new DocumentSso(await storage.document(ssoDocument));
}

/** Single sign-on's settings, directory and departures over the account data. Nothing to start or stop. */
export async function openSso(data: AccountData): Promise<SsoRuntime> {
  const { config, accounts, clock, logger } = data;
  const repository = await openSsoRepository(data.storage);
  const secrets = SsoSecrets.fromKey(config.SSO_ENCRYPTION_KEY);
  return {
    directory: new StoredSsoDirectory(repository, secrets, logger),
    settings: new SsoSettingsService({
      repository,
      secrets,
      accounts,
      audit: logFailures(data.audit, logger),
      config,
      clock,
    }),
    departures: {
      departed: (organisationId, email) => repository.departed(organisationId, normaliseEmailAddress(email), clock()),
      rejoined: (organisationId, email) => repository.rejoined(organisationId, normaliseEmailAddress(email)),
    },
  };
}
