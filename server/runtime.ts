import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AccountService } from './accounts/account-service';
import { openAccountStore } from './accounts/account-store';
import { dummyPasswordHash } from './accounts/passwords';
import { JsonLinesAuditLog, logFailures, type AuditLog } from './audit/audit-log';
import { DEFAULT_LOGIN_LIMITS, LoginThrottle, type LoginThrottleLimits } from './auth/login-throttle';
import { SignInService } from './auth/sign-in';
import type { Config } from './config';
import { DeclarationRepository } from './declarations/declaration-repository';
import { openDeclarationStore } from './declarations/declaration-store';
import { ingestUserAgent } from './http-client/fetcher';
import type { RefreshOptions } from './ingest/refresh';
import { startIngestService, type IngestService } from './ingest/service';
import { KeyService } from './keys/key-service';
import { openKeyStore } from './keys/key-store';
import { createLogger, type Logger } from './logger';
import type { PostcodeIndex } from './postcodes/postcode-index';
import { PostcodeService } from './postcodes/postcode-service';
import { WINDOW_MS } from './rate-limit/check-rate-limit';
import { InMemorySlidingWindow, type SlidingWindowCounter } from './rate-limit/sliding-window';
import { OriginPolicy } from './sessions/origin-policy';
import { resolveSessionSecret } from './sessions/session-secret';
import { FileSessionStore, type SessionStore } from './sessions/session-store';

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
}

/** How a refresh reads its sources, from the configuration: the same for the server's schedule and `npm run ingest`. */
export type RefreshSettings = Pick<
  RefreshOptions,
  'dataDir' | 'baseUrl' | 'drfaCsvUrl' | 'browser' | 'minDeclarations' | 'clock'
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
 * the server (index.ts), the admin and ingest CLIs and the tests alike. The stores are opened as the JSON files in
 * DATA_DIR; the services see them only as the interfaces AccountStore, KeyStore, DeclarationStore, SessionStore and
 * AuditLog, so another implementation (a database) is plugged in here.
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
  const data = await openData(base, purpose);
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
  return {
    config,
    dataDir,
    clock,
    logger: overrides.logger ?? createLogger(config.LOG_LEVEL),
    refreshSettings: {
      dataDir,
      baseUrl: config.DISASTERASSIST_BASE_URL,
      drfaCsvUrl: config.DRFA_CSV_URL,
      browser: { executablePath: config.CHROMIUM_PATH },
      minDeclarations: config.INGEST_MIN_DECLARATIONS,
      clock,
      fetcher: { userAgent: ingestUserAgent(config.INGEST_CONTACT) },
    },
    close: async () => undefined,
  };
}

async function openData(base: Runtime, purpose: 'server' | 'admin'): Promise<DataRuntime> {
  const { dataDir, clock, logger } = base;
  const onReloadError = (err: unknown) =>
    logger.error({ err }, 'could not reload a data file changed by another process');
  const [accountStore, keyStore, declarationStore] = await Promise.all([
    openAccountStore(dataDir, onReloadError),
    openKeyStore(dataDir, onReloadError),
    openDeclarationStore(dataDir, onReloadError),
  ]);
  const stores = [accountStore, keyStore, declarationStore];
  // The server picks up the admin CLI's and the ingest's writes; a one-shot CLI command need not.
  if (purpose === 'server') stores.forEach((s) => s.watch());

  const audit = JsonLinesAuditLog.inDataDir(dataDir, clock);
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
    async close() {
      await keys.flushUsage();
      await Promise.all(stores.map((s) => s.close()));
      await audit.close();
    },
  };
}

async function openServer(data: DataRuntime, overrides: RuntimeOverrides): Promise<ServerRuntime> {
  const { config, dataDir, clock, logger } = data;
  const auth: AuthSettings = { ...authOptionsFromConfig(config), ...overrides.auth };
  const idleTimeoutMs = auth.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const absoluteTimeoutMs = auth.absoluteTimeoutMs ?? DEFAULT_ABSOLUTE_TIMEOUT_MS;
  if (!(idleTimeoutMs > 0 && absoluteTimeoutMs > 0)) throw new Error('session timeouts must be positive');

  let rateLimitCounter = overrides.rateLimitCounter;
  let closeCounter: () => Promise<void> = async () => undefined;
  if (!rateLimitCounter && config.REDIS_URL) {
    // Opened first, so that an unreachable Redis stops the start before anything else is open. Loaded only when
    // used: the CLIs and single-instance servers never need the Redis client.
    const { RedisSlidingWindow } = await import('./rate-limit/redis-sliding-window');
    let lastLogged = 0;
    const redis = await RedisSlidingWindow.open({
      url: config.REDIS_URL,
      windowMs: WINDOW_MS,
      // Reported on every reconnection attempt: logged at most every 30 s.
      onError: (err) => {
        if (Date.now() - lastLogged < 30_000) return;
        lastLogged = Date.now();
        logger.error({ err }, 'rate-limit Redis unreachable: checks answer 503 until it is back');
      },
    });
    rateLimitCounter = redis;
    closeCounter = () => redis.close();
  }

  // Population-weighted LGAs: the bundled ABS correspondence, or POSTCODE_LGA_URL's (cached in DATA_DIR) when set.
  const postcodeService = overrides.postcodes
    ? null
    : await PostcodeService.open({ source: config.POSTCODE_LGA_URL, dataDir, logger });
  const postcodes = overrides.postcodes ?? postcodeService!;

  const secret = await resolveSessionSecret(dataDir, auth.sessionSecret);
  if (secret.source === 'generated') {
    logger.info('generated a session secret in DATA_DIR/session-secret (set SESSION_SECRET to manage it yourself)');
  }
  if (secret.tightenedPermissions) logger.warn('DATA_DIR/session-secret was readable by others; its mode is now 0600');

  const sessions = await FileSessionStore.open(dataDir, { idleTimeoutMs, absoluteTimeoutMs, clock }, (err) =>
    logger.error({ err }, 'could not reload sessions.json changed by another process'),
  );
  sessions.on('error', (err: unknown) => logger.error({ err }, 'session store write failed'));
  await sessions.purge();
  sessions.watch();

  const throttle = new LoginThrottle({ ...DEFAULT_LOGIN_LIMITS, ...auth.loginLimits }, () => clock().getTime());
  // The stand-in hash for unknown emails is made now, so the first such login is not slower than the others.
  await dummyPasswordHash();

  const purge = setInterval(() => {
    throttle.purge();
    sessions.purge().catch((err: unknown) => logger.error({ err }, 'could not purge expired sessions'));
  }, PURGE_INTERVAL_MS);
  purge.unref();

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
        beforeScheduledRun: postcodeService ? () => postcodeService.refresh() : undefined,
        logger,
      });
      background = { usageFlush, ingest };
      return ingest;
    },
    async close() {
      if (background) {
        clearInterval(background.usageFlush);
        await background.ingest.stop();
      }
      clearInterval(purge);
      await data.close();
      await sessions.close();
      await closeCounter();
    },
  };
}
