import { LoginThrottle, type LoginThrottleLimits } from '../auth/login-throttle';
import { InMemoryBatchAllowance, type BatchAllowance } from '../check/batch-allowance';
import type { BackendName, BackendProbe } from '../health/health-routes';
import type { Logger } from '../logger';
import { WINDOW_MS } from '../rate-limit/check-rate-limit';
import { EpochBumps } from '../storage/postgres/data-epoch';
import { InMemorySlidingWindow, type SlidingWindowCounter } from '../rate-limit/sliding-window';
import type { SessionPolicy, SessionStore } from '../sessions/session-store';
import { CloseStack, once } from '../lifecycle';
import type { OwnedSsoFlowStore } from '../sso/sso-flow-store';

/** REDIS_URL and REDIS_KEY_PREFIX, and whose clock the windows are kept on. */
export interface RedisSettings {
  url: string;
  keyPrefix: string;
  /**
   * 'redis': the windows on Redis TIME, one clock for every instance (production). 'caller': on the process clock (a
   * test's fake one; instances must agree on the time).
   */
  clock: 'redis' | 'caller';
  /** Per command, before the request is answered 503. Default 500 ms. */
  commandTimeoutMs?: number;
}

/** What is counted across requests, and the sessions when Redis holds them. */
export interface Counters {
  /** Where checks are counted (opened once). */
  rateLimit(): Promise<SlidingWindowCounter>;
  /** The rows each organisation may check in batches per day (opened once, by the server). */
  batchAllowance(perDay: number): Promise<BatchAllowance>;
  /** Failed sign-ins: while Redis is out every sign-in is answered 503, never let through uncounted. */
  loginThrottle(limits: LoginThrottleLimits, now: () => number): Promise<LoginThrottle>;
  /** Sessions in Redis under `${keyPrefix}sess:`; null without Redis (the documents' backend keeps them). */
  sessions: ((policy: SessionPolicy) => Promise<SessionStore>) | null;
  /** Single sign-on's flows in Redis under `${keyPrefix}sso-flow:`; null without Redis (the documents' backend). */
  ssoFlows: (() => Promise<OwnedSsoFlowStore>) | null;
  probes: Partial<Record<BackendName, BackendProbe>>;
  /**
   * Moves the data epoch in Redis (`${keyPrefix}data-epoch`) after a commit of this process, before the writer is
   * answered, so that every instance's next check sees that something changed (storage/postgres/data-epoch.ts); never
   * rejects (EpochBumps retries). Null without Redis.
   */
  announceCommit: (() => Promise<void>) | null;
  /** Closes the Redis connections opened (after one last try at an epoch bump that had failed). */
  close(): Promise<void>;
}

const quiet = { info: () => undefined, warn: () => undefined };

/** Reported by the Redis client on every reconnection attempt: logged at most every 30 s. */
function throttledErrors(logger: Pick<Logger, 'error'> | undefined, what: string) {
  let lastLogged = 0;
  return (err: Error) => {
    if (!logger || Date.now() - lastLogged < 30_000) return;
    lastLogged = Date.now();
    logger.error({ err }, `${what}: Redis unreachable`);
  };
}

/**
 * The counters on Redis when `redis` is given (one connection attempt each at open: an Error naming the host when it
 * fails; then reconnection for ever), else in this process. The Redis modules are loaded only when used: the CLIs
 * and single-instance servers never need the Redis client.
 */
export function counters(redis: RedisSettings | null, logger?: Pick<Logger, 'error' | 'warn' | 'info'>): Counters {
  const stack = new CloseStack();
  if (!redis) {
    return {
      rateLimit: once(async () => new InMemorySlidingWindow(WINDOW_MS)),
      batchAllowance: async (perDay) => new InMemoryBatchAllowance(perDay),
      loginThrottle: async (limits, now) => new LoginThrottle(limits, now),
      sessions: null,
      ssoFlows: null,
      probes: {},
      announceCommit: null,
      close: () => stack.close(),
    };
  }
  const rateLimit = once(async () => {
    const { RedisSlidingWindow } = await import('../rate-limit/redis-sliding-window');
    const opened = await RedisSlidingWindow.open({
      url: redis.url,
      windowMs: WINDOW_MS,
      keyPrefix: `${redis.keyPrefix}rl:`,
      clock: redis.clock,
      commandTimeoutMs: redis.commandTimeoutMs,
      onError: throttledErrors(logger, 'rate limit (checks answer 503 rate_limit_unavailable until it is back)'),
      epochKey: `${redis.keyPrefix}data-epoch`,
    });
    stack.defer('the rate limit', () => opened.close());
    return opened;
  });
  // On the rate limit's connection: a server has it open from the start; a CLI opens it with its first commit.
  const bumps = new EpochBumps({ bump: async () => (await rateLimit()).bumpEpoch(), logger: logger ?? quiet });
  return {
    rateLimit,
    async batchAllowance(perDay) {
      const { RedisBatchAllowance } = await import('../check/redis-batch-allowance');
      const allowance = await RedisBatchAllowance.open({
        url: redis.url,
        perDay,
        keyPrefix: `${redis.keyPrefix}batch:`,
        commandTimeoutMs: redis.commandTimeoutMs,
        onError: throttledErrors(logger, 'list rows allowance (batches answered 503 until it is back)'),
      });
      stack.defer('the list rows allowance', () => allowance.close());
      return allowance;
    },
    async loginThrottle(limits, now) {
      const { RedisLoginCounter } = await import('../auth/redis-login-counter');
      const counter = await RedisLoginCounter.open({
        url: redis.url,
        keyPrefix: `${redis.keyPrefix}login:`,
        windowMs: limits.windowMs,
        clock: redis.clock,
        commandTimeoutMs: redis.commandTimeoutMs,
        onError: throttledErrors(logger, 'login throttle (sign-ins answered 503 until it is back)'),
      });
      const throttle = new LoginThrottle(limits, now, counter);
      stack.defer('the login throttle', () => throttle.close());
      return throttle;
    },
    async sessions(policy) {
      const { RedisSessionStore } = await import('../sessions/redis-session-store');
      // Closed by whoever opened it (the storage registry), as the other backends' session stores are.
      return RedisSessionStore.open({
        url: redis.url,
        keyPrefix: redis.keyPrefix,
        policy,
        commandTimeoutMs: redis.commandTimeoutMs,
        onError: throttledErrors(logger, 'sessions (answered 503 session_unavailable until it is back)'),
      });
    },
    ssoFlows: () => openRedisSsoFlows(redis, logger),
    probes: { redis: async () => (await rateLimit()).ping() },
    announceCommit: () => bumps.afterCommit(),
    async close() {
      await bumps.close();
      await stack.close();
    },
  };
}

/** Single sign-on's flows in Redis: closed by whoever opened it (the storage registry), as the sessions are. */
async function openRedisSsoFlows(
  redis: RedisSettings,
  logger: Pick<Logger, 'error'> | undefined,
): Promise<OwnedSsoFlowStore> {
  const { RedisSsoFlowStore } = await import('../sso/redis-sso-flow-store');
  return RedisSsoFlowStore.open({
    url: redis.url,
    keyPrefix: redis.keyPrefix,
    commandTimeoutMs: redis.commandTimeoutMs,
    onError: throttledErrors(logger, 'single sign-on (answered 503 storage_unavailable until it is back)'),
  });
}
