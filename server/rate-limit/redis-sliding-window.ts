import { createHash, randomBytes } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';
import { RateLimitUnavailableError, type SlidingWindowCounter, type WindowState } from './sliding-window';

/**
 * Decide and record in one atomic step (InMemorySlidingWindow's semantics exactly, across every instance):
 * KEYS[1] = prefix .. bucket, a sorted set of accepted requests scored by their time in ms;
 * ARGV = now (ms, or '' to read Redis TIME, the one clock all instances share), window ms, limit, member suffix.
 * Returns {allowed 0/1, count, resetAt, now}, resetAt and now on the script's clock.
 */
export const CONSUME_SCRIPT = `
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[1])
end
local window, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
-- A request at t counts for [t, t + window): at now - window it has left (inclusive bound).
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, string.format('%.0f', now) .. ':' .. ARGV[4])
  -- The set outlives its newest entry by nothing: an idle bucket expires by itself.
  redis.call('PEXPIRE', KEYS[1], window)
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
  return {1, count + 1, tonumber(oldest) + window, now}
end
if count == 0 then
  return {0, 0, now + window, now}
end
-- Refused, not recorded. A slot frees when the entry keeping the count at the limit leaves: the oldest, unless
-- the limit was lowered below what is already counted.
local i = math.min(count - limit, count - 1)
local freeing = redis.call('ZRANGE', KEYS[1], i, i, 'WITHSCORES')[2]
return {0, count, tonumber(freeing) + window, now}
`;

const CONSUME_SHA = createHash('sha1').update(CONSUME_SCRIPT).digest('hex');

export interface RedisSlidingWindowOptions {
  /** redis:// or rediss:// URL. */
  url: string;
  windowMs: number;
  /** Put in front of every bucket. Default `dte:rl:`. */
  keyPrefix?: string;
  /**
   * Whose clock the window is kept on. 'redis' (default): Redis TIME, read inside the script, so every instance
   * shares one clock; the caller's `now` only translates `resetAt` back to the caller's clock for the headers.
   * 'caller': the `now` passed to `consume` (for tests on a fake clock; instances must then agree on the time).
   */
  clock?: 'redis' | 'caller';
  /** How long one command may take before the check answers 503. Default 500 ms. */
  commandTimeoutMs?: number;
  /** How long one connection attempt may take. Default 1000 ms. */
  connectTimeoutMs?: number;
  /** Connection errors (reported while the client reconnects by itself). Default: ignored. */
  onError?: (err: Error) => void;
}

/** Reconnection backoff: 50 ms doubling to 1 s, with up to 20% jitter, forever. */
function reconnectDelay(retries: number): number {
  const base = Math.min(50 * 2 ** retries, 1000);
  return Math.round(base * (1 + Math.random() * 0.2));
}

/**
 * SlidingWindowCounter over Redis, shared by every instance: one sorted set per bucket and one Lua script
 * (CONSUME_SCRIPT, by EVALSHA, EVAL when Redis does not have it cached). `undo` is ZPOPMAX, `reset` DEL, `purge`
 * nothing (sets expire one window after their newest entry).
 *
 * When Redis cannot be reached every call fails at once with RateLimitUnavailableError: commands are not queued
 * while disconnected (`disableOfflineQueue`), each has a timeout, and the client reconnects by itself with backoff,
 * so the counter recovers without a restart.
 */
export class RedisSlidingWindow implements SlidingWindowCounter {
  private readonly prefix: string;
  private readonly useCallerClock: boolean;
  private readonly commandTimeoutMs: number;
  /** Unique to this process; with `seq`, makes every member unique even for requests in the same millisecond. */
  private readonly instanceId = randomBytes(6).toString('hex');
  private seq = 0;

  private constructor(
    private readonly client: RedisClientType,
    readonly windowMs: number,
    options: RedisSlidingWindowOptions,
  ) {
    this.prefix = options.keyPrefix ?? 'dte:rl:';
    this.useCallerClock = options.clock === 'caller';
    this.commandTimeoutMs = options.commandTimeoutMs ?? 500;
  }

  /**
   * Connects (one attempt within `connectTimeoutMs`; then RateLimitUnavailableError) and returns the counter.
   * Later outages are handled by reconnecting in the background.
   */
  static async open(options: RedisSlidingWindowOptions): Promise<RedisSlidingWindow> {
    let connected = false;
    const client = createClient({
      url: options.url,
      disableOfflineQueue: true,
      // While Redis is slow, commands waiting for a reply are bounded too: beyond this many, refused at once.
      commandsQueueMaxLength: 1000,
      socket: {
        connectTimeout: options.connectTimeoutMs ?? 1000,
        // The first connection is tried once (open() reports it); later ones are retried for ever.
        reconnectStrategy: (retries, cause) => (connected ? reconnectDelay(retries) : cause),
      },
    }) as RedisClientType;
    // Without a listener an 'error' event would crash the process.
    client.on('error', (err: Error) => options.onError?.(err));
    try {
      await client.connect();
      connected = true;
    } catch (err) {
      client.destroy();
      throw new RateLimitUnavailableError(`could not connect to Redis for rate limiting`, { cause: err });
    }
    return new RedisSlidingWindow(client, options.windowMs, options);
  }

  async consume(key: string, limit: number, now: number): Promise<WindowState> {
    const args = [
      '1',
      this.prefix + key,
      this.useCallerClock ? String(now) : '',
      String(this.windowMs),
      String(limit),
      `${this.instanceId}:${(this.seq = (this.seq + 1) % Number.MAX_SAFE_INTEGER)}`,
    ];
    const reply = await this.run(async () => {
      try {
        return await this.client.sendCommand(['EVALSHA', CONSUME_SHA, ...args]);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
        // Not cached (first use, a restart, SCRIPT FLUSH): EVAL runs it and caches it for the next EVALSHA.
        return await this.client.sendCommand(['EVAL', CONSUME_SCRIPT, ...args]);
      }
    });
    const [allowed, count, resetAt, scriptNow] = reply as unknown as [number, number, number, number];
    // On Redis's clock, resetAt is translated to the caller's by its distance from Redis's now.
    return { allowed: allowed === 1, count, resetAt: now + (resetAt - scriptNow) };
  }

  async undo(key: string): Promise<void> {
    await this.run(() => this.client.sendCommand(['ZPOPMAX', this.prefix + key]));
  }

  async reset(key: string): Promise<void> {
    await this.run(() => this.client.sendCommand(['DEL', this.prefix + key]));
  }

  purge(): void {
    // Sorted sets expire one window after their newest entry.
  }

  /** Closes the connection: pending commands are answered first, for at most a second. */
  async close(): Promise<void> {
    if (!this.client.isOpen) return void this.client.destroy();
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      this.client.close().then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 1000))),
    ]);
    clearTimeout(timer);
    if (!closed) this.client.destroy();
  }

  /**
   * Runs a command within `commandTimeoutMs`. node-redis's own command timeout stops at the socket (a command
   * written to a Redis that hangs waits for ever), hence the race here; a reply that comes later is dropped.
   */
  private async run<T>(command: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no reply within ${this.commandTimeoutMs} ms`)), this.commandTimeoutMs);
    });
    const pending = command();
    // A reply after the timeout (or an error) must not become an unhandled rejection.
    pending.catch(() => undefined);
    try {
      return await Promise.race([pending, timeout]);
    } catch (err) {
      throw new RateLimitUnavailableError('Redis did not answer the rate-limit command', { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }
}
