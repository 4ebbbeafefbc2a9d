import type { RedisClientType } from 'redis';
import { RedisSlidingWindow, SCRIPT_NOW } from '../rate-limit/redis-sliding-window';
import { rateLimitUnavailable, type WindowState } from '../rate-limit/sliding-window';
import { evalScript, luaScript, openRedisClient } from '../storage/redis-client';
import type { LoginBucket, LoginCounter } from './login-throttle';

/**
 * One attempt counted in every bucket or in none, atomically (InMemorySlidingWindow's semantics per bucket, across
 * every instance): KEYS = the buckets (sorted sets of accepted attempts scored by time in ms); ARGV = now (ms, or ''
 * to read Redis TIME), window ms, member suffix, then one limit per key. Returns {now, then allowed 0/1, count,
 * resetAt per bucket}, on the script's clock. `allowed` says whether that bucket alone had room; the attempt is
 * recorded only when all have.
 */
const CONSUME_ALL = luaScript(`
${SCRIPT_NOW}
local window = tonumber(ARGV[2])
local member = string.format('%.0f', now) .. ':' .. ARGV[3]
local counts = {}
local all = true
for i, key in ipairs(KEYS) do
  -- An attempt at t counts for [t, t + window): at now - window it has left (inclusive bound).
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  counts[i] = redis.call('ZCARD', key)
  if counts[i] >= tonumber(ARGV[3 + i]) then all = false end
end
local out = {now}
for i, key in ipairs(KEYS) do
  local limit, count = tonumber(ARGV[3 + i]), counts[i]
  local allowed, reset
  if all then
    redis.call('ZADD', key, now, member)
    -- The set outlives its newest entry by nothing: an idle bucket expires by itself.
    redis.call('PEXPIRE', key, window)
    count = count + 1
    allowed, reset = 1, tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) + window
  elseif count == 0 then
    allowed, reset = (limit > 0) and 1 or 0, now + window
  elseif count < limit then
    allowed, reset = 1, tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) + window
  else
    -- A slot frees when the entry keeping the count at the limit leaves: the oldest, unless the limit was lowered
    -- below what is already counted.
    local j = math.min(count - limit, count - 1)
    allowed, reset = 0, tonumber(redis.call('ZRANGE', key, j, j, 'WITHSCORES')[2]) + window
  end
  table.insert(out, allowed)
  table.insert(out, count)
  table.insert(out, reset)
end
return out
`);

export interface RedisLoginCounterOptions {
  client: RedisClientType;
  windowMs: number;
  /** Put in front of every bucket: `${REDIS_KEY_PREFIX}login:`. */
  keyPrefix: string;
  /**
   * Whose clock the window is kept on. 'redis' (default): Redis TIME, read inside the script, one clock for every
   * instance; the caller's `now` only translates `resetAt` back (Retry-After). 'caller': the `now` passed in (tests
   * on a fake clock; instances must then agree on the time).
   */
  clock?: 'redis' | 'caller';
  /** How long one command may take before the sign-in is answered 503. Default 500 ms. */
  commandTimeoutMs?: number;
  /** Whether close() closes the client. Default false. */
  ownsClient?: boolean;
}

/**
 * The login throttle's counter in Redis, shared by every instance: RedisSlidingWindow's sorted sets (`consume`, `undo`
 * as ZPOPMAX, `reset` as DEL, `purge` nothing), plus `consumeAll` deciding both buckets of an attempt (email, address)
 * and recording it in both or neither in one script, so concurrent attempts on any number of instances never exceed
 * either limit.
 *
 * When Redis cannot be reached (commands are not queued while disconnected) or does not answer within
 * `commandTimeoutMs`, every call fails at once with rateLimitUnavailable(); the client reconnects by itself.
 */
export class RedisLoginCounter extends RedisSlidingWindow implements LoginCounter {
  constructor(options: RedisLoginCounterOptions) {
    super(options.client, { ...options, ownsClient: options.ownsClient ?? false });
  }

  async consumeAll(buckets: readonly LoginBucket[], now: number): Promise<WindowState[]> {
    const reply = (await this.run(() =>
      evalScript(
        this.client,
        CONSUME_ALL,
        buckets.map((b) => this.prefix + b.key),
        [this.clockArg(now), String(this.windowMs), this.member(), ...buckets.map((b) => String(b.limit))],
      ),
    )) as number[];
    const scriptNow = reply[0]!;
    return buckets.map((_b, i) => ({
      allowed: reply[1 + 3 * i] === 1,
      count: reply[2 + 3 * i]!,
      // On Redis's clock, resetAt is translated to the caller's by its distance from Redis's now.
      resetAt: now + (reply[3 + 3 * i]! - scriptNow),
    }));
  }

  /** Connects (one attempt; rateLimitUnavailable() naming the host when it fails) and returns an owning counter. */
  static override async open(
    options: Omit<RedisLoginCounterOptions, 'client' | 'ownsClient'> & {
      url: string;
      connectTimeoutMs?: number;
      onError?: (err: Error) => void;
    },
  ): Promise<RedisLoginCounter> {
    let client: RedisClientType;
    try {
      client = await openRedisClient({ ...options, purpose: 'login throttling' });
    } catch (err) {
      throw rateLimitUnavailable((err as Error).cause, (err as Error).message);
    }
    return new RedisLoginCounter({ ...options, client, ownsClient: true });
  }
}
