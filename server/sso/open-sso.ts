import { normaliseEmailAddress } from '../../shared/domain/text-hygiene';
import type { AccountService } from '../accounts/account-service';
import { logFailures, type AuditRecorder } from '../audit/audit-log';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { AlongsideWrite, DocumentStore } from '../storage/document-store';
import type { DocumentDeclaration } from '../storage/document';
import type { Database } from '../storage/postgres/database';
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

/**
 * What single sign-on opens of the storage registry (its Storage, by shape: the registry itself opens the SSO flow
 * store, so naming its type here would make the two folders import each other).
 */
export interface SsoStorage {
  readonly database: Database | null;
  document<T extends object>(declaration: DocumentDeclaration<T>): Promise<DocumentStore<T>>;
}

/** The settings' store on the configured backend: PostgreSQL's rows (read per call), else DATA_DIR/sso.json. */
export async function openSsoRepository(storage: SsoStorage): Promise<SsoRepository> {
  if (storage.database) {
    const { PostgresSso } = await import('./postgres-sso');
    return new PostgresSso(storage.database.pool);
  }
  return new DocumentSso(await storage.document(ssoDocument));
}

/**
 * The departures alone, for the admin CLI (whose `remove-member` is a removal from the team too): the store is opened
 * at the first removal, so that other commands create nothing in DATA_DIR.
 */
export function openSsoDepartures(data: Pick<SsoData, 'storage' | 'clock'>): SsoDepartures {
  let opening: Promise<SsoRepository> | undefined;
  const repository = () => (opening ??= openSsoRepository(data.storage));
  const later = (write: (r: SsoRepository) => AlongsideWrite): AlongsideWrite => ({
    write: async (transaction) => write(await repository()).write(transaction),
  });
  return departuresOver(later, data.clock);
}

/** The departures, each address normalised as accounts keep them, each write made on the repository `on` gives. */
function departuresOver(
  on: (write: (r: SsoRepository) => AlongsideWrite) => AlongsideWrite,
  clock: () => Date,
): SsoDepartures {
  return {
    departed: (organisationId, email) => on((r) => r.departed(organisationId, normaliseEmailAddress(email), clock())),
    rejoined: (organisationId, email) => on((r) => r.rejoined(organisationId, normaliseEmailAddress(email))),
  };
}

/** What single sign-on is opened over: the account data's (AccountData). */
export interface SsoData {
  config: Config;
  storage: SsoStorage;
  accounts: AccountService;
  audit: AuditRecorder;
  clock: () => Date;
  logger: Logger;
}

/** Single sign-on's settings, directory and departures over the account data. Nothing to start or stop. */
export async function openSso(data: SsoData): Promise<SsoRuntime> {
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
    departures: departuresOver((write) => write(repository), clock),
  };
}
