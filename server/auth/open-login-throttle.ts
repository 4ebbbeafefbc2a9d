import { LoginThrottle, type LoginThrottleLimits } from './login-throttle';

export interface OpenLoginThrottleOptions {
  limits: LoginThrottleLimits;
  /** The process clock, in ms (`() => clock().getTime()`). */
  now: () => number;
  /** REDIS_URL and REDIS_KEY_PREFIX: count in Redis under `${keyPrefix}login:`, shared by every instance. */
  redis?: {
    url: string;
    keyPrefix: string;
    /**
     * 'redis': the window on Redis TIME, one clock for every instance (production). 'caller': on `now` (a test's fake
     * clock; instances must agree on the time).
     */
    clock: 'redis' | 'caller';
    /** Connection errors while the client reconnects by itself (called on every attempt: rate-limit the logging). */
    onError?: (err: Error) => void;
    /** Per command, before a sign-in is answered 503 rate_limit_unavailable. Default 500 ms. */
    commandTimeoutMs?: number;
  };
}

/**
 * The login throttle the configuration asks for: counting in Redis when `redis` is given (one connection attempt at
 * start: RateLimitUnavailableError naming the host when it fails; then reconnection for ever, and while Redis is out
 * every sign-in is answered 503 `rate_limit_unavailable`, never let through uncounted), else in this process, exactly
 * as `new LoginThrottle(limits, now)`. `close()` closes the Redis connection.
 */
export async function openLoginThrottle(options: OpenLoginThrottleOptions): Promise<LoginThrottle> {
  const { limits, now, redis } = options;
  if (!redis) return new LoginThrottle(limits, now);
  // Loaded only when used: single-instance servers never need the Redis client.
  const { RedisLoginCounter } = await import('./redis-login-counter');
  const counter = await RedisLoginCounter.open({
    url: redis.url,
    keyPrefix: `${redis.keyPrefix}login:`,
    windowMs: limits.windowMs,
    clock: redis.clock,
    onError: redis.onError,
    commandTimeoutMs: redis.commandTimeoutMs,
  });
  return new LoginThrottle(limits, now, counter);
}
