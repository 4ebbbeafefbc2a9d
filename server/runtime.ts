import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AccountService } from './accounts/account-service';
import type { AlertsService } from './alerts/alerts-service';
import { openCatchments } from './alerts/open-catchments';
import type { CatchmentService } from './catchment/catchment-service';
import { openWebhooks } from './webhooks/open-webhooks';
import type { WebhookService, WebhookTuning } from './webhooks/webhook-service';
import { openAccountStore } from './accounts/account-store';
import { dummyPasswordHash } from './accounts/passwords';
import { JsonLinesAuditLog, logFailures, type AuditLog } from './audit/audit-log';
import { DEFAULT_LOGIN_LIMITS, type LoginThrottle, type LoginThrottleLimits } from './auth/login-throttle';
import { openLoginThrottle } from './auth/open-login-throttle';
import { SignInService } from './auth/sign-in';
import { ConfigError, type Config } from './config';
import { DeclarationRepository } from './declarations/declaration-repository';
import { openDeclarationStore, type DeclarationStore } from './declarations/declaration-store';
import type { BackendName, BackendProbe } from './health/health-router';
import { ingestUserAgent } from './http-client/fetcher';
import type { RefreshOptions } from './ingest/refresh';
import { startIngestService, type IngestService } from './ingest/service';
import { KeyService } from './keys/key-service';
import { openKeyStore } from './keys/key-store';
import { createLogger, type Logger } from './logger';
import type { PostcodeIndex } from './postcodes/postcode-index';
import { PostcodeService } from './postcodes/postcode-service';
import { WINDOW_MS } from './rate-limit/check-rate-limit';
import type { RedisSlidingWindow } from './rate-limit/redis-sliding-window';
import { InMemorySlidingWindow, type SlidingWindowCounter } from './rate-limit/sliding-window';
import { OriginPolicy } from './sessions/origin-policy';
import { resolveSessionSecret } from './sessions/session-secret';
import { openSessionStore } from './sessions/open-session-store';
import type { SessionStore } from './sessions/session-store';
import type { Database } from './storage/postgres/database';

export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_ABSOLUTE_TIMEOUT_MS = 12 * 3600_000;
/** How often expired sessions are removed from sessions.json and old login failures from memory. */
const PURGE_INTERVAL_MS = 10 * 60_000;
/** How often batched key usage (last_used_at) is written. */
const USAGE_FLUSH_MS = 15_000;

/** What the process opens: the server everything; the admin CLI the account data; the ingest CLI only DATA_DIR. */
export type RuntimePurpose = 'server' | 'admin' | 'ingest';

/** Sessions and sign-in, as configured (see authOptionsFromConfig) or as a test sets them. */
export interface AuthSettings {
  /** SESSION_SECRET; when unset, a secret generated once and kept in DATA_DIR/session-secret (0600). */
  sessionSecret?: string;
  /** EXTENSION_ORIGINS; empty = any chrome-extension:// origin. */
  extensionOrigins?: readonly string[];
  /** PUBLIC_URL: the web origins allowed to drive the cookie session. Unset = where the server listens (HOST). */
  publicOrigins?: readonly string[];
  /** HOST, for the default of publicOrigins. */
  listenHost?: string;
  idleTimeoutMs?: number;
  absoluteTimeoutMs?: number;
  loginLimits?: Partial<LoginThrottleLimits>;
}

export interface RuntimeOverrides {
  /** Default 'server'. */
  purpose?: RuntimePurpose;
  /** The one clock of the process: sessions, keys, accounts, the audit trail, the check and its rate limit read it. */
  clock?: () => Date;
  /** Default: JSON lines on stdout at LOG_LEVEL. */
  logger?: Logger;
  /** The postcode index to answer from. Default: the bundled ABS correspondence, or POSTCODE_LGA_URL's. */
  postcodes?: PostcodeIndex;
  /** Where check requests are counted. Default: Redis when REDIS_URL is set, else in this process. */
  rateLimitCounter?: SlidingWindowCounter;
  /** Sign-in settings over the configuration's (a test's short session timeouts or login limits). */
  auth?: AuthSettings;
  /** Webhook delivery timings over the defaults (a test's short back-off). */
  webhooks?: WebhookTuning;
}

/** How a refresh reads its sources, from the configuration: the same for the server's schedule and `npm run ingest`. */
export type RefreshSettings = Pick<
  RefreshOptions,
  | 'dataDir'
  | 'baseUrl'
  | 'drfaCsvUrl'
  | 'browser'
  | 'minDeclarations'
  | 'clock'
  | 'declarations'
  | 'ingestState'
  | 'lock'
  | 'correspondenceCache'
> & {
  fetcher: { userAgent: string };
};

/** What every process has: its configuration, DATA_DIR (created), one clock and one logger. */
export interface Runtime {
  config: Config;
  dataDir: string;
  clock: () => Date;
  logger: Logger;
  refreshSettings: RefreshSettings;
  /** DATABASE_URL's PostgreSQL, migrated; null when the state lives in DATA_DIR's JSON files. */
  database: Database | null;
  /** Stops everything started and waits for pending writes. */
  close(): Promise<void>;
}

/** The account data and its services: what the admin CLI works with. */
export interface DataRuntime extends Runtime {
  accounts: AccountService;
  keys: KeyService;
  declarations: DeclarationRepository;
  /** Written by the services that change state; read by `npm run admin -- audit`. */
  audit: AuditLog;
  /**
   * With PostgreSQL: resolves once this process holds every change committed (by any instance) before the call, so
   * that a key revoked or a subscription ended elsewhere is refused on the very next request. Null with JSON files
   * (one process serves; another process's writes are picked up by the file watchers).
   */
  syncData: (() => Promise<void>) | null;
}

/** Everything the HTTP application needs (createApp). */
export interface ServerRuntime extends DataRuntime {
  postcodes: PostcodeIndex;
  rateLimitCounter: SlidingWindowCounter;
  sessions: SessionStore;
  sessionSecret: string;
  idleTimeoutMs: number;
  absoluteTimeoutMs: number;
  origins: OriginPolicy;
  throttle: LoginThrottle;
  signIn: SignInService;
  /**
   * Starts what a serving process does besides answering requests: writing batched key usage every 15 s, and the
   * ingest on INGEST_SCHEDULE (renewing the postcode correspondence before each scheduled run). close() stops both.
   */
  startBackgroundWork(): IngestService;
  /** Reachability checks of the shared backends configured, for /healthz. */
  backends: Partial<Record<BackendName, BackendProbe>>;
  /** Each subscription's catchment (PUT/GET /api/v1/catchment). */
  catchments: CatchmentService;
  /** Catchment alerts: processed after every refresh; `alerts.onAlerts(listener)` hears each committed batch. */
  alerts: AlertsService;
  /** Each subscription's webhook (PUT/GET/DELETE /api/v1/webhook) and the delivery of new alerts to it. */
  webhooks: WebhookService;
}

/** The sign-in settings that come from the configuration: EXTENSION_ORIGINS, PUBLIC_URL, HOST and SESSION_*. */
export function authOptionsFromConfig(
  config: Pick<
    Config,
    'SESSION_SECRET' | 'EXTENSION_ORIGINS' | 'PUBLIC_URL' | 'HOST' | 'SESSION_IDLE_MINUTES' | 'SESSION_ABSOLUTE_HOURS'
  >,
): Omit<AuthSettings, 'loginLimits'> {
  return {
    sessionSecret: config.SESSION_SECRET,
    extensionOrigins: config.EXTENSION_ORIGINS,
    publicOrigins: config.PUBLIC_URL,
    listenHost: config.HOST,
    idleTimeoutMs: config.SESSION_IDLE_MINUTES === undefined ? undefined : config.SESSION_IDLE_MINUTES * 60_000,
    absoluteTimeoutMs:
      config.SESSION_ABSOLUTE_HOURS === undefined ? undefined : config.SESSION_ABSOLUTE_HOURS * 3600_000,
  };
}

/**
 * The one place the process is wired: every store and service is built here, once, on one clock and one logger, in
 * the server (index.ts), the admin and ingest CLIs and the tests alike. The services see the stores only as the
 * interfaces AccountStore, KeyStore, DeclarationStore, IngestStateStore, SessionStore and AuditLog; which
 * implementation is opened is decided here and nowhere else:
 *
 * - nothing configured: JSON files in DATA_DIR, counters in the process (one instance);
 * - DATABASE_URL: accounts, subscriptions, keys, the audit trail, declarations and the ingest state in PostgreSQL
 *   (and sessions, unless Redis has them), the ingest lock a PostgreSQL advisory lock;
 * - REDIS_URL: the check's rate limit, the login throttle and the sessions in Redis.
 *
 * With both, any number of instances behave as one service.
 */
export function openRuntime(
  config: Config,
  overrides?: RuntimeOverrides & { purpose?: 'server' },
): Promise<ServerRuntime>;
export function openRuntime(config: Config, overrides: RuntimeOverrides & { purpose: 'admin' }): Promise<DataRuntime>;
export function openRuntime(config: Config, overrides: RuntimeOverrides & { purpose: 'ingest' }): Promise<Runtime>;
export async function openRuntime(config: Config, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const base = await openBase(config, overrides);
  const purpose = overrides.purpose ?? 'server';
  if (purpose === 'ingest') return base;
  let data: DataRuntime;
  try {
    data = await openData(base, purpose);
  } catch (err) {
    await base.close().catch(() => undefined);
    throw err;
  }
  if (purpose === 'admin') return data;
  try {
    return await openServer(data, overrides);
  } catch (err) {
    await data.close().catch(() => undefined);
    throw err;
  }
}

async function openBase(config: Config, overrides: RuntimeOverrides): Promise<Runtime> {
  const dataDir = path.resolve(config.DATA_DIR);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const clock = overrides.clock ?? (() => new Date());
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL);
  const shared = config.DATABASE_URL
    ? await openSharedIngestState(config.DATABASE_URL, overrides.purpose ?? 'server', logger)
    : null;
  return {
    config,
    dataDir,
    clock,
    logger,
    database: shared?.database ?? null,
    refreshSettings: {
      ...shared?.refresh,
      dataDir,
      baseUrl: config.DISASTERASSIST_BASE_URL,
      drfaCsvUrl: config.DRFA_CSV_URL,
      browser: { executablePath: config.CHROMIUM_PATH },
      minDeclarations: config.INGEST_MIN_DECLARATIONS,
      clock,
      fetcher: { userAgent: ingestUserAgent(config.INGEST_CONTACT) },
    },
    close: async () => {
      await shared?.close();
    },
  };
}

/**
 * DATABASE_URL's database (migrated at once, before anything reads it) and what a refresh of any process writes
 * there: the declarations, the ingest state, and the advisory lock that lets one instance refresh at a time (held on
 * a connection, so a killed holder's lock goes with it).
 */
async function openSharedIngestState(
  url: string,
  purpose: RuntimePurpose,
  logger: Logger,
): Promise<{
  database: Database;
  refresh: Required<Pick<RefreshOptions, 'declarations' | 'ingestState' | 'lock' | 'correspondenceCache'>>;
  close(): Promise<void>;
}> {
  const [
    { openDatabase },
    { openPostgresDeclarationStore },
    { openPostgresIngestStateStore },
    { openPostgresCorrespondenceCache },
    { tryAdvisoryLock },
  ] = await Promise.all([
    import('./storage/postgres/database'),
    import('./declarations/postgres-declaration-store'),
    import('./ingest/postgres-ingest-state-store'),
    import('./postcodes/postgres-correspondence-cache'),
    import('./storage/postgres/advisory-lock'),
  ]);
  const database = await openDatabase(url, { logger, applicationName: `dte-${purpose}` });
  try {
    const [declarations, ingestState] = await Promise.all([
      openPostgresDeclarationStore(database),
      openPostgresIngestStateStore(database),
    ]);
    return {
      database,
      refresh: {
        declarations,
        ingestState,
        lock: () => tryAdvisoryLock(database.pool, 'ingest'),
        // Opened for each load and closed after it (correspondence-cache.ts), so nothing to close here.
        correspondenceCache: () => openPostgresCorrespondenceCache(database),
      },
      async close() {
        await Promise.all([declarations.close(), ingestState.close()]);
        await database.close();
      },
    };
  } catch (err) {
    await database.close().catch(() => undefined);
    throw err;
  }
}

async function openData(base: Runtime, purpose: 'server' | 'admin'): Promise<DataRuntime> {
  const { dataDir, clock, logger, database } = base;
  const { accountStore, keyStore, declarationStore, audit } = database
    ? await openPostgresData(database, base.refreshSettings.declarations!, clock)
    : await openJsonData(dataDir, clock, logger);
  // Only the stores opened here are closed here (the shared declarations are the base's).
  const stores = database ? [accountStore, keyStore] : [accountStore, keyStore, declarationStore];
  // The server picks up other processes' writes (the admin CLI's, the ingest's, other instances'); a one-shot CLI
  // command need not.
  if (purpose === 'server') [accountStore, keyStore, declarationStore].forEach((s) => s.watch());

  // A request's change has happened when its event is recorded: a failed audit write is logged, not answered with an
  // error. An admin command fails instead, for the operator to see.
  const recorder = purpose === 'server' ? logFailures(audit, logger) : audit;
  const accounts = new AccountService(accountStore, recorder, clock);
  const keys = new KeyService(keyStore, accounts, recorder, clock);
  return {
    ...base,
    accounts,
    keys,
    declarations: new DeclarationRepository(declarationStore),
    audit,
    syncData: database ? () => database.versions.sync() : null,
    async close() {
      await keys.flushUsage();
      await Promise.all(stores.map((s) => s.close()));
      await audit.close();
      await base.close();
    },
  };
}

async function openJsonData(dataDir: string, clock: () => Date, logger: Logger) {
  const onReloadError = (err: unknown) =>
    logger.error({ err }, 'could not reload a data file changed by another process');
  const [accountStore, keyStore, declarationStore] = await Promise.all([
    openAccountStore(dataDir, onReloadError),
    openKeyStore(dataDir, onReloadError),
    openDeclarationStore(dataDir, onReloadError),
  ]);
  return { accountStore, keyStore, declarationStore, audit: JsonLinesAuditLog.inDataDir(dataDir, clock) as AuditLog };
}

async function openPostgresData(database: Database, declarationStore: DeclarationStore, clock: () => Date) {
  const [{ openPostgresAccountStore }, { openPostgresKeyStore }, { PostgresAuditLog }] = await Promise.all([
    import('./accounts/postgres-account-store'),
    import('./keys/postgres-key-store'),
    import('./audit/postgres-audit-log'),
  ]);
  const [accountStore, keyStore] = await Promise.all([
    openPostgresAccountStore(database),
    openPostgresKeyStore(database),
  ]);
  return { accountStore, keyStore, declarationStore, audit: new PostgresAuditLog(database.pool, clock) as AuditLog };
}

async function openServer(data: DataRuntime, overrides: RuntimeOverrides): Promise<ServerRuntime> {
  const { config, dataDir, clock, logger } = data;
  const auth: AuthSettings = { ...authOptionsFromConfig(config), ...overrides.auth };
  const idleTimeoutMs = auth.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const absoluteTimeoutMs = auth.absoluteTimeoutMs ?? DEFAULT_ABSOLUTE_TIMEOUT_MS;
  if (!(idleTimeoutMs > 0 && absoluteTimeoutMs > 0)) throw new Error('session timeouts must be positive');
  if ((config.DATABASE_URL || config.REDIS_URL) && !auth.sessionSecret) {
    // A secret generated into one instance's DATA_DIR would make its cookies worthless on every other instance.
    throw new ConfigError(
      'Invalid configuration: SESSION_SECRET is required when DATABASE_URL or REDIS_URL is set (every instance must sign session cookies with the same secret)',
    );
  }

  // Redis keeps its windows on its own clock, one for every instance; a process on a clock of its own (a test's fake
  // one) counts on that instead, as its in-process counters would.
  const redisClock = overrides.clock ? 'caller' : 'redis';
  const redisErrors = (what: string) => {
    let lastLogged = 0;
    // Reported on every reconnection attempt: logged at most every 30 s.
    return (err: Error) => {
      if (Date.now() - lastLogged < 30_000) return;
      lastLogged = Date.now();
      logger.error({ err }, `${what}: Redis unreachable`);
    };
  };
  let rateLimitCounter = overrides.rateLimitCounter;
  let closeCounter: () => Promise<void> = async () => undefined;
  let redisCounter: RedisSlidingWindow | null = null;
  if (!rateLimitCounter && config.REDIS_URL) {
    // Opened first, so that an unreachable Redis stops the start before anything else is open. Loaded only when
    // used: the CLIs and single-instance servers never need the Redis client.
    const { RedisSlidingWindow } = await import('./rate-limit/redis-sliding-window');
    const redis = await RedisSlidingWindow.open({
      url: config.REDIS_URL,
      windowMs: WINDOW_MS,
      keyPrefix: `${config.REDIS_KEY_PREFIX}rl:`,
      clock: redisClock,
      onError: redisErrors('rate limit (checks answer 503 rate_limit_unavailable until it is back)'),
    });
    rateLimitCounter = redisCounter = redis;
    closeCounter = () => redis.close();
  }

  // Population-weighted LGAs: the bundled ABS correspondence, or POSTCODE_LGA_URL's (cached in DATA_DIR) when set.
  const postcodeService = overrides.postcodes
    ? null
    : await PostcodeService.open({
        source: config.POSTCODE_LGA_URL,
        dataDir,
        logger,
        correspondenceCache: data.refreshSettings.correspondenceCache,
      });
  const postcodes = overrides.postcodes ?? postcodeService!;

  const secret = await resolveSessionSecret(dataDir, auth.sessionSecret);
  if (secret.source === 'generated') {
    logger.info('generated a session secret in DATA_DIR/session-secret (set SESSION_SECRET to manage it yourself)');
  }
  if (secret.tightenedPermissions) logger.warn('DATA_DIR/session-secret was readable by others; its mode is now 0600');

  const redis = config.REDIS_URL ? { url: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX } : undefined;
  // Sessions where every instance finds them: Redis, else PostgreSQL (whose accounts they belong to), else the file.
  const sessions = await openSessionStore({
    dataDir,
    policy: { idleTimeoutMs, absoluteTimeoutMs, clock },
    redis: redis && { ...redis, onError: redisErrors('sessions (answered 503 session_unavailable until it is back)') },
    pool: data.database?.pool,
    onReloadError: (err) => logger.error({ err }, 'could not reload sessions.json changed by another process'),
  }).catch(async (err: unknown) => {
    await closeCounter();
    throw err;
  });
  sessions.on('error', (err: unknown) => logger.error({ err }, 'session store write failed'));

  let throttle: LoginThrottle;
  try {
    await sessions.purge();
    sessions.watch();
    throttle = await openLoginThrottle({
      limits: { ...DEFAULT_LOGIN_LIMITS, ...auth.loginLimits },
      now: () => clock().getTime(),
      redis: redis && {
        ...redis,
        clock: redisClock,
        onError: redisErrors('login throttle (sign-ins answered 503 until it is back)'),
      },
    });
  } catch (err) {
    await sessions.close().catch(() => undefined);
    await closeCounter();
    throw err;
  }
  // The stand-in hash for unknown emails is made now, so the first such login is not slower than the others.
  await dummyPasswordHash();

  const purge = setInterval(() => {
    throttle.purge();
    sessions.purge().catch((err: unknown) => logger.error({ err }, 'could not purge expired sessions'));
  }, PURGE_INTERVAL_MS);
  purge.unref();

  // Opened before the catchments, so that the first alerts they announce find the webhooks listening.
  let webhookParts: Awaited<ReturnType<typeof openWebhooks>>;
  try {
    webhookParts = await openWebhooks({
      dataDir,
      database: data.database,
      clock,
      logger,
      allowPrivateAddresses: config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
      tuning: overrides.webhooks,
    });
  } catch (err) {
    clearInterval(purge);
    await sessions.close().catch(() => undefined);
    await throttle.close().catch(() => undefined);
    await closeCounter();
    throw err;
  }

  let catchmentParts: Awaited<ReturnType<typeof openCatchments>>;
  try {
    catchmentParts = await openCatchments(data, postcodes);
  } catch (err) {
    clearInterval(purge);
    await webhookParts.close().catch(() => undefined);
    await sessions.close().catch(() => undefined);
    await throttle.close().catch(() => undefined);
    await closeCounter();
    throw err;
  }
  const { catchments, alerts, closeCatchments } = catchmentParts;
  const webhooks = webhookParts.service;
  // Each committed batch of alerts becomes a webhook delivery, queued in the store and sent by the worker; what a
  // stop between the two left unqueued is queued when the worker starts.
  webhooks.attachAlerts(alerts);
  alerts.onAlerts((batches) => {
    webhooks
      .enqueueAlerts(batches)
      .catch((err: unknown) => logger.error({ err }, 'could not queue webhook deliveries'));
  });

  let background: { usageFlush: NodeJS.Timeout; ingest: IngestService } | null = null;
  return {
    ...data,
    postcodes,
    rateLimitCounter: rateLimitCounter ?? new InMemorySlidingWindow(WINDOW_MS),
    sessions,
    sessionSecret: secret.secret,
    idleTimeoutMs,
    absoluteTimeoutMs,
    origins: new OriginPolicy({
      extensionOrigins: auth.extensionOrigins,
      publicOrigins: auth.publicOrigins,
      listenHost: auth.listenHost,
    }),
    throttle,
    signIn: new SignInService(data.accounts, throttle, logFailures(data.audit, logger)),
    backends: {
      ...(data.database && { postgresql: () => data.database!.ping() }),
      ...(redisCounter && { redis: () => redisCounter!.ping() }),
    },
    catchments,
    alerts,
    webhooks,
    startBackgroundWork() {
      if (background) return background.ingest;
      const usageFlush = setInterval(() => {
        data.keys.flushUsage().catch((err: unknown) => logger.error({ err }, 'could not record key usage'));
      }, USAGE_FLUSH_MS);
      usageFlush.unref();
      // Daily refresh on INGEST_SCHEDULE (Sydney time), retried after a failure; see ingest/service.ts. The
      // correspondence's cached copy ages too, so it is renewed first (the start-up run uses the one just opened).
      const ingest = startIngestService({
        ...data.refreshSettings,
        schedule: config.INGEST_SCHEDULE,
        declarations: data.declarations.store,
        ingestState: data.refreshSettings.ingestState,
        lock: data.refreshSettings.lock,
        correspondenceCache: data.refreshSettings.correspondenceCache,
        beforeScheduledRun: postcodeService ? () => postcodeService.refresh() : undefined,
        logger,
      });
      background = { usageFlush, ingest };
      // Webhook deliveries: due ones every second, new ones at once (stopped by close()).
      webhooks.start();
      return ingest;
    },
    async close() {
      if (background) {
        clearInterval(background.usageFlush);
        await background.ingest.stop();
      }
      clearInterval(purge);
      await closeCatchments();
      await webhookParts.close();
      await sessions.close();
      await throttle.close();
      await data.close();
      await closeCounter();
    },
  };
}
