import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { dummyPasswordHash } from '../accounts/passwords';
import { AuditLog } from '../audit/audit-log';
import { DEFAULT_LOGIN_LIMITS, LoginThrottle, type LoginThrottleLimits } from './login-throttle';
import { OriginPolicy } from './origin-policy';
import { resolveSessionSecret } from './session-secret';
import { FileSessionStore } from './session-store';

export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_ABSOLUTE_TIMEOUT_MS = 12 * 3600_000;
/** How often expired sessions are removed from sessions.json and old login failures from memory. */
const PURGE_INTERVAL_MS = 10 * 60_000;

export interface AuthOptions {
  dataDir: string;
  logger: Logger;
  clock?: () => Date;
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

/** Everything sign-in needs that outlives a request: the session store, the secret, the throttle, the audit log. */
export interface AuthRuntime {
  sessions: FileSessionStore;
  secret: string;
  audit: AuditLog;
  throttle: LoginThrottle;
  origins: OriginPolicy;
  clock: () => Date;
  idleTimeoutMs: number;
  absoluteTimeoutMs: number;
  logger: Logger;
  /** Stops the purge timer and waits for pending session and audit writes. */
  close(): Promise<void>;
}

/** The AuthOptions that come from the configuration (SPEC Part B §12 plus EXTENSION_ORIGINS, PUBLIC_URL and SESSION_*). */
export function authOptionsFromConfig(config: {
  SESSION_SECRET?: string;
  EXTENSION_ORIGINS?: readonly string[];
  PUBLIC_URL?: readonly string[];
  HOST?: string;
  SESSION_IDLE_MINUTES?: number;
  SESSION_ABSOLUTE_HOURS?: number;
}): Pick<AuthOptions, 'sessionSecret' | 'extensionOrigins' | 'publicOrigins' | 'listenHost' | 'idleTimeoutMs' | 'absoluteTimeoutMs'> {
  return {
    sessionSecret: config.SESSION_SECRET,
    extensionOrigins: config.EXTENSION_ORIGINS,
    publicOrigins: config.PUBLIC_URL,
    listenHost: config.HOST,
    idleTimeoutMs: config.SESSION_IDLE_MINUTES === undefined ? undefined : config.SESSION_IDLE_MINUTES * 60_000,
    absoluteTimeoutMs: config.SESSION_ABSOLUTE_HOURS === undefined ? undefined : config.SESSION_ABSOLUTE_HOURS * 3600_000,
  };
}

export async function openAuth(options: AuthOptions): Promise<AuthRuntime> {
  const { dataDir, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const absoluteTimeoutMs = options.absoluteTimeoutMs ?? DEFAULT_ABSOLUTE_TIMEOUT_MS;
  if (!(idleTimeoutMs > 0 && absoluteTimeoutMs > 0)) throw new Error('session timeouts must be positive');

  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const secret = await resolveSessionSecret(dataDir, options.sessionSecret);
  if (secret.source === 'generated') logger.info('generated a session secret in DATA_DIR/session-secret (set SESSION_SECRET to manage it yourself)');
  if (secret.tightenedPermissions) logger.warn('DATA_DIR/session-secret was readable by others; its mode is now 0600');

  const sessions = await FileSessionStore.open(dataDir, { idleTimeoutMs, absoluteTimeoutMs, clock }, (err) =>
    logger.error({ err }, 'could not reload sessions.json changed by another process'),
  );
  sessions.on('error', (err: unknown) => logger.error({ err }, 'session store write failed'));
  await sessions.purge();
  sessions.watch();

  const throttle = new LoginThrottle({ ...DEFAULT_LOGIN_LIMITS, ...options.loginLimits }, () => clock().getTime());
  // The stand-in hash for unknown emails is made now, so the first such login is not slower than the others.
  await dummyPasswordHash();

  const purge = setInterval(() => {
    throttle.purge();
    sessions.purge().catch((err: unknown) => logger.error({ err }, 'could not purge expired sessions'));
  }, PURGE_INTERVAL_MS);
  purge.unref();

  const audit = AuditLog.inDataDir(dataDir, clock);
  return {
    sessions,
    secret: secret.secret,
    audit,
    throttle,
    origins: new OriginPolicy({ extensionOrigins: options.extensionOrigins, publicOrigins: options.publicOrigins, listenHost: options.listenHost }),
    clock,
    idleTimeoutMs,
    absoluteTimeoutMs,
    logger,
    async close() {
      clearInterval(purge);
      await audit.close();
      await sessions.close();
    },
  };
}
