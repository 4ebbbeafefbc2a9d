import path from 'node:path';
import type { AccountStore } from '../accounts/account-records';
import { accountsDocument } from '../accounts/accounts-document';
import { JsonLinesAuditLog, type AuditLog } from '../audit/audit-log';
import type { LoginThrottle, LoginThrottleLimits } from '../auth/login-throttle';
import type { BatchAllowance } from '../check/batch-allowance';
import type { CatchmentRepository } from '../catchment/catchment-repository';
import { DocumentCatchments } from '../catchment/document-catchments';
import { catchmentsDocument } from '../catchment/catchments-document';
import { sharedInstance, type Config } from '../config';
import type { DeclarationStore } from '../declarations/declaration-records';
import { declarationsDocument } from '../declarations/declarations-document';
import type { BackendName, BackendProbe } from '../health/health-routes';
import { ingestFileLock, type IngestLock } from '../ingest/ingest-lock';
import type { IngestStateStore } from '../ingest/ingest-state';
import { ingestStateDocument } from '../ingest/ingest-state-document';
import type { KeyStore } from '../keys/key-records';
import { keysDocument } from '../keys/keys-document';
import { CloseStack, once } from '../lifecycle';
import type { Logger } from '../logger';
import type { OpenCorrespondenceCache } from '../postcodes/correspondence-cache';
import { correspondenceDocument } from '../postcodes/correspondence-document';
import { DataEpoch } from '../storage/postgres/data-epoch';
import type { SlidingWindowCounter } from '../rate-limit/sliding-window';
import { FileSessionStore } from '../sessions/file-session-store';
import type { SessionPolicy, SessionStore } from '../sessions/session-store';
import { DocumentWebhooks } from '../webhooks/document-webhooks';
import type { WebhookRepository } from '../webhooks/webhook-repository';
import { webhooksDocument } from '../webhooks/webhooks-document';
import { DocumentUsage } from '../usage/document-usage';
import { usageDocument } from '../usage/usage-document';
import type { UsageRepository } from '../usage/usage-repository';
import { counters, type Counters, type RedisSettings } from './counters';
import {
  openJsonDocument,
  openPostgresDocument,
  readJsonDocument,
  readOnce,
  type DocumentDeclaration,
} from '../storage/document';
import type { DocumentStore } from '../storage/document-store';
import type { Database } from '../storage/postgres/database';
import { InMemorySsoFlowStore } from '../sso/in-memory-sso-flow-store';
import type { OwnedSsoFlowStore } from '../sso/sso-flow-store';

/**
 * Every store the service uses, on the backend the configuration chose. Each store is opened on first use (a CLI
 * opens only what its command needs; the ingest's dry run creates nothing), once, and closed by `close()` after the
 * services that use it.
 */
export interface Storage {
  readonly kind: 'json' | 'postgresql';
  /** DATABASE_URL's database, migrated; null when the state lives in DATA_DIR's JSON files. */
  readonly database: Database | null;
  /**
   * Any declared document's store (storage/document.ts), opened once: a new document type needs only its
   * declaration and its SQL migration to be stored on either backend.
   */
  document<T extends object>(declaration: DocumentDeclaration<T>): Promise<DocumentStore<T>>;
  accounts(): Promise<AccountStore>;
  keys(): Promise<KeyStore>;
  declarations(): Promise<DeclarationStore>;
  ingestState(): Promise<IngestStateStore>;
  /** The catchments and their alerts: DATA_DIR's document, or PostgreSQL's rows (read per request). */
  catchments(): Promise<CatchmentRepository>;
  /** The webhooks and their delivery queue: DATA_DIR's document, or PostgreSQL's rows (read per operation). */
  webhooks(): Promise<WebhookRepository>;
  /** Checks per API key per day: DATA_DIR's document, or PostgreSQL's rows. */
  usage(): Promise<UsageRepository>;
  /** A document's content without opening it as a store or creating anything: null when there is none yet. */
  read<T extends object>(declaration: DocumentDeclaration<T>): Promise<T | null>;
  /** The POSTCODE_LGA_URL correspondence's cache, opened for each load and closed after it. */
  readonly correspondenceCache: OpenCorrespondenceCache;
  /** The lock that keeps refreshes from overlapping: DATA_DIR/ingest.lock, or a PostgreSQL advisory lock. */
  readonly ingestLock: IngestLock;
  /** Written by the services that change state; read by `npm run admin -- audit`. */
  audit(): Promise<AuditLog>;
  /** The cookie sessions: Redis when configured, else PostgreSQL, else DATA_DIR/sessions.json. */
  sessions(policy: SessionPolicy): Promise<SessionStore>;
  /** Single sign-on's flows (opened once): Redis when configured, else PostgreSQL, else this process. */
  ssoFlows(): Promise<OwnedSsoFlowStore>;
  /** Where checks are counted: Redis when configured, else this process. */
  rateLimit(): Promise<SlidingWindowCounter>;
  /** The daily allowance of batch rows: Redis when configured, else this process. */
  batchAllowance(perDay: number): Promise<BatchAllowance>;
  /** Failed sign-ins, counted in Redis when configured, else in this process. */
  loginThrottle(limits: LoginThrottleLimits, now: () => number): Promise<LoginThrottle>;
  /**
   * With PostgreSQL: resolves once this process holds every change committed (by any instance) before the call, so
   * that a key revoked or a subscription ended elsewhere is refused on the very next request. Null with JSON files
   * (one process serves; another process's writes are picked up by the file watchers).
   */
  readonly syncData: (() => Promise<void>) | null;
  /**
   * With PostgreSQL and Redis: the data epoch, which every commit of this process moves in Redis before its caller is
   * answered, and which lets the check learn from its rate-limit round trip alone that this process is current
   * (storage/postgres/data-epoch.ts). Null otherwise.
   */
  readonly dataEpoch: DataEpoch | null;
  /** Reachability checks of the shared backends configured, for /healthz. */
  readonly probes: Partial<Record<BackendName, BackendProbe>>;
  /** Closes every store opened, then the connections. */
  close(): Promise<void>;
}

export interface StorageOptions {
  logger: Logger;
  clock: () => Date;
  /** Follow other processes' writes (a server does; a one-shot CLI command need not). */
  watch: boolean;
  /** Shown in pg_stat_activity, to tell instances and CLIs apart. */
  applicationName?: string;
  /** Whose clock Redis counts on: Redis's own (default: one for every instance) or the caller's (a test's). */
  redisClock?: 'redis' | 'caller';
  /** JSON files: how long an ingest.lock whose holder cannot be checked stays (tests shorten it). */
  lockStaleMs?: number;
}

/**
 * Where the state lives, decided here and nowhere else:
 *
 * - nothing configured: JSON files in DATA_DIR, counters in the process (one instance);
 * - DATABASE_URL: every document, the sessions (unless Redis has them) and the audit trail in PostgreSQL, the ingest
 *   lock a PostgreSQL advisory lock;
 * - REDIS_URL: the check's rate limit, the login throttle and the sessions in Redis.
 *
 * With both, any number of instances behave as one service. Redis is connected first, so that an unreachable one
 * stops the start before anything else is open.
 */
export async function openStorage(
  config: Pick<Config, 'DATA_DIR' | 'DATABASE_URL' | 'REDIS_URL' | 'REDIS_KEY_PREFIX'>,
  options: StorageOptions,
): Promise<Storage> {
  const dataDir = path.resolve(config.DATA_DIR);
  if (!sharedInstance(config)) return jsonStores(dataDir, options);
  const redis: RedisSettings | null = config.REDIS_URL
    ? { url: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, clock: options.redisClock ?? 'redis' }
    : null;
  const counted = counters(redis, options.logger);
  if (!config.DATABASE_URL) return jsonStores(dataDir, options, counted);
  const { openDatabase } = await import('../storage/postgres/database');
  const database = await openDatabase(config.DATABASE_URL, {
    logger: options.logger,
    applicationName: options.applicationName,
  });
  return postgresStores(database, options, counted);
}

/** DATA_DIR's JSON files, over `counted` (in this process unless Redis was configured). */
export function jsonStores(dataDir: string, options: StorageOptions, counted: Counters = counters(null)): Storage {
  const onReloadError = (file: string) => (err: unknown) =>
    options.logger.error({ err }, `could not reload ${file} changed by another process`);
  return assemble({
    kind: 'json',
    database: null,
    options,
    counted,
    open: (declaration) => openJsonDocument(declaration, dataDir, onReloadError(declaration.file)),
    read: (declaration) => readJsonDocument(declaration, dataDir),
    correspondenceCache: () => openJsonDocument(correspondenceDocument, dataDir),
    ingestLock: ingestFileLock(dataDir, options.lockStaleMs),
    audit: async () => JsonLinesAuditLog.inDataDir(dataDir, options.clock),
    sessions: (policy) => FileSessionStore.open(dataDir, policy, onReloadError('sessions.json')),
    ssoFlows: async () => new InMemorySsoFlowStore({ now: () => options.clock().getTime() }),
    syncData: null,
  });
}

/** DATABASE_URL's database (migrated), shared by every instance; `close()` closes it last. */
export function postgresStores(
  database: Database,
  options: StorageOptions,
  counted: Counters = counters(null),
): Storage {
  return assemble({
    kind: 'postgresql',
    database,
    options,
    counted,
    open: (declaration) => openPostgresDocument(declaration, database),
    read: (declaration) => readOnce(() => openPostgresDocument(declaration, database)),
    // Opened for each load and closed after it (correspondence-cache.ts): one copy for every instance.
    correspondenceCache: () => openPostgresDocument(correspondenceDocument, database),
    ingestLock: async () => {
      const { tryAdvisoryLock } = await import('../storage/postgres/advisory-lock');
      return tryAdvisoryLock(database.pool, 'ingest');
    },
    audit: async () => {
      const { PostgresAuditLog } = await import('../audit/postgres-audit-log');
      return new PostgresAuditLog(database.pool, options.clock);
    },
    sessions: async (policy) => {
      const { PostgresSessionStore } = await import('../sessions/postgres-session-store');
      return new PostgresSessionStore({ pool: database.pool, policy });
    },
    ssoFlows: async () => {
      const { PostgresSsoFlowStore } = await import('../sso/postgres-sso-flow-store');
      return new PostgresSsoFlowStore({ pool: database.pool, now: () => options.clock().getTime() });
    },
    syncData: () => database.versions.sync(),
    dataEpoch: epochOf(database, counted, options),
    probes: { postgresql: () => database.ping() },
    catchments: async () => {
      const { PostgresCatchments } = await import('../catchment/postgres-catchments');
      return new PostgresCatchments(database.pool);
    },
    webhooks: async () => {
      const { PostgresWebhooks } = await import('../webhooks/postgres-webhooks');
      return new PostgresWebhooks(database.pool);
    },
    usage: async () => {
      const { PostgresUsage } = await import('../usage/postgres-usage');
      return new PostgresUsage(database.pool);
    },
    closeLast: () => database.close(),
  });
}

/** Wires every commit of `database` to the data epoch in Redis, when there is one. */
function epochOf(database: Database, counted: Counters, options: StorageOptions): DataEpoch | null {
  if (!counted.announceCommit) return null;
  database.versions.announceCommitsWith(counted.announceCommit);
  return new DataEpoch(() => database.versions.sync(), options.logger);
}

interface Parts {
  kind: Storage['kind'];
  database: Database | null;
  options: StorageOptions;
  counted: Counters;
  open<T extends object>(declaration: DocumentDeclaration<T>): Promise<DocumentStore<T>>;
  read: Storage['read'];
  correspondenceCache: OpenCorrespondenceCache;
  ingestLock: IngestLock;
  audit(): Promise<AuditLog>;
  sessions(policy: SessionPolicy): Promise<SessionStore>;
  ssoFlows(): Promise<OwnedSsoFlowStore>;
  syncData: Storage['syncData'];
  dataEpoch?: DataEpoch | null;
  probes?: Storage['probes'];
  closeLast?: () => Promise<void>;
  /** Catchments kept otherwise than as the document (PostgreSQL's rows). */
  catchments?: () => Promise<CatchmentRepository>;
  /** Webhooks kept otherwise than as the document (PostgreSQL's rows). */
  webhooks?: () => Promise<WebhookRepository>;
  /** Usage kept otherwise than as the document (PostgreSQL's rows). */
  usage?: () => Promise<UsageRepository>;
}

/** The registry over one backend's parts: each store opened once, watched when asked, closed in reverse. */
function assemble(parts: Parts): Storage {
  const { options, counted } = parts;
  const stack = new CloseStack();
  if (parts.closeLast) stack.defer('the database', parts.closeLast);
  stack.defer('the Redis connections', () => counted.close());
  const watched = <S extends { watch(): void }>(store: S): S => {
    if (options.watch) store.watch();
    return store;
  };
  const opened = new Map<string, () => Promise<DocumentStore<object>>>();
  const document = <T extends object>(declaration: DocumentDeclaration<T>): Promise<DocumentStore<T>> => {
    let open = opened.get(declaration.name);
    if (!open) {
      open = once(() =>
        stack.open(
          declaration.name,
          async () => watched(await parts.open(declaration)) as DocumentStore<object>,
          (store) => store.close(),
        ),
      );
      opened.set(declaration.name, open);
    }
    return open() as Promise<DocumentStore<T>>;
  };
  return {
    kind: parts.kind,
    database: parts.database,
    document,
    accounts: () => document(accountsDocument),
    keys: () => document(keysDocument),
    declarations: () => document(declarationsDocument),
    ingestState: () => document(ingestStateDocument),
    catchments: once(async () => parts.catchments?.() ?? new DocumentCatchments(await document(catchmentsDocument))),
    webhooks: once(async () => parts.webhooks?.() ?? new DocumentWebhooks(await document(webhooksDocument))),
    usage: once(async () => parts.usage?.() ?? new DocumentUsage(await document(usageDocument))),
    read: parts.read,
    correspondenceCache: parts.correspondenceCache,
    ingestLock: parts.ingestLock,
    audit: once(() => stack.open('the audit trail', parts.audit, (log) => log.close())),
    // Sessions where every instance finds them: Redis, else PostgreSQL (whose accounts they belong to), else the file.
    sessions: (policy) =>
      stack.open(
        'the sessions',
        async () => watched((await counted.sessions?.(policy)) ?? (await parts.sessions(policy))),
        (store) => store.close(),
      ),
    // Where every instance finds them, as the sessions: Redis, else PostgreSQL, else this process (one instance).
    ssoFlows: once(() =>
      stack.open(
        'the single sign-on flows',
        async () => (await counted.ssoFlows?.()) ?? (await parts.ssoFlows()),
        (store) => store.close(),
      ),
    ),
    rateLimit: counted.rateLimit,
    batchAllowance: counted.batchAllowance,
    loginThrottle: counted.loginThrottle,
    syncData: parts.syncData,
    dataEpoch: parts.dataEpoch ?? null,
    probes: { ...parts.probes, ...counted.probes },
    close: () => stack.close(),
  };
}
