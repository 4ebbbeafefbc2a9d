import { randomBytes } from 'node:crypto';
import type { RedisClientType } from 'redis';
import { closeRedisClient, evalScript, luaScript, openRedisClient } from '../storage/redis-client';
import { StaleDataError } from '../storage/postgres/data-epoch';
import { ReplyDeadlines } from './reply-deadlines';
import { rateLimitUnavailable, type SlidingWindowCounter, type WindowState } from './sliding-window';

/**
 * The start of every sliding-window script: `now` in ms from ARGV[1], or from Redis TIME when ARGV[1] is '' (the one
 * clock all instances share). CONSUME_SCRIPT and the login throttle's script (redis-login-counter.ts) begin with it.
 */
export const SCRIPT_NOW = `local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[1])
end`;

/**
 * Decide and record in one atomic step (InMemorySlidingWindow's semantics exactly, across every instance):
 * KEYS[1] = prefix .. bucket, a sorted set of accepted requests scored by their time in ms;
 * ARGV = now (ms, or '' to read Redis TIME, the one clock all instances share), window ms, limit, member suffix.
 * Returns {allowed 0/1, count, resetAt, now}, resetAt and now on the script's clock.
 */
export const CONSUME_SCRIPT = `
${SCRIPT_NOW}
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

const CONSUME = luaScript(CONSUME_SCRIPT);

/**
 * CONSUME_SCRIPT behind a comparison of the data epoch (storage/postgres/data-epoch.ts), in the same round trip:
 * KEYS[2] = the epoch, ARGV[5] = the epoch the request was identified on. When they differ (a missing epoch reads
 * '0'), nothing is counted or refused and the reply is {-1, epoch}: the caller catches up, identifies the request
 * again and has it counted.
 */
const CONSUME_FRESH = luaScript(`
local epoch = redis.call('GET', KEYS[2]) or '0'
if epoch ~= ARGV[5] then
  return {-1, epoch}
end
${CONSUME_SCRIPT}`);

/**
 * Moves the data epoch past every value it ever had: to Redis TIME in µs, or one more when that is not ahead. So
 * after Redis lost the key, or came back from an older snapshot, the next bump is still a value no instance has
 * known, and an instance never takes a moved epoch for the one it synced to. Returns the new epoch.
 */
const BUMP_EPOCH = luaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local epoch = string.format('%.0f', math.max(tonumber(redis.call('GET', KEYS[1]) or '0') + 1, now))
redis.call('SET', KEYS[1], epoch)
return epoch
`);

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
  /**
   * The data epoch's key (`<REDIS_KEY_PREFIX>data-epoch`): set, `consume` compares the epoch a request was
   * identified on with it (`checksDataEpoch`) and `bumpEpoch` moves it. Unset: neither.
   */
  epochKey?: string;
}

/** How a RedisSlidingWindow, or a counter built on it (RedisLoginCounter), counts on its client. */
export type RedisWindowSettings = Pick<
  RedisSlidingWindowOptions,
  'windowMs' | 'clock' | 'commandTimeoutMs' | 'epochKey'
> & {
  keyPrefix: string;
  /** Whether close() closes the client. */
  ownsClient: boolean;
};

/**
 * SlidingWindowCounter over Redis, shared by every instance: one sorted set per bucket and one Lua script
 * (CONSUME_SCRIPT, by EVALSHA, EVAL when Redis does not have it cached). `undo` is ZPOPMAX, `reset` DEL, `purge`
 * nothing (sets expire one window after their newest entry).
 *
 * When Redis cannot be reached every call fails at once with rateLimitUnavailable(): commands are not queued
 * while disconnected (`disableOfflineQueue`), each has a timeout, and the client reconnects by itself with backoff,
 * so the counter recovers without a restart (openRedisClient, storage/redis-client.ts).
 */
export class RedisSlidingWindow implements SlidingWindowCounter {
  readonly windowMs: number;
  protected readonly prefix: string;
  private readonly useCallerClock: boolean;
  /** ARGV[2] of the scripts. */
  private readonly windowArg: string;
  private readonly ownsClient: boolean;
  private readonly epochKey: string | undefined;
  /** `client` without node-redis's own command timeout (see the constructor). */
  private readonly commandClient: RedisClientType;
  private readonly deadlines: ReplyDeadlines;
  /** Unique to this process; with `seq`, makes every member unique even for requests in the same millisecond. */
  private readonly instanceId = randomBytes(6).toString('hex');
  private seq = 0;

  protected constructor(
    protected readonly client: RedisClientType,
    settings: RedisWindowSettings,
  ) {
    this.windowMs = settings.windowMs;
    this.prefix = settings.keyPrefix;
    this.useCallerClock = settings.clock === 'caller';
    this.windowArg = String(settings.windowMs);
    this.ownsClient = settings.ownsClient;
    this.epochKey = settings.epochKey;
    // node-redis gives every command an AbortSignal.timeout of 5 s that cannot be cleared: at thousands of checks a
    // second that is thousands of live timers and signals, promoted by the collector before they fire (measured:
    // about a third more GC time per check). `run` bounds each command with a timer it clears instead.
    this.commandClient = client.withCommandOptions({ timeout: undefined }) as unknown as RedisClientType;
    this.deadlines = new ReplyDeadlines(settings.commandTimeoutMs ?? 500, (cause) => rateLimitUnavailable(cause));
  }

  get checksDataEpoch(): boolean {
    return this.epochKey !== undefined;
  }

  /**
   * Connects (one attempt within `connectTimeoutMs`; then rateLimitUnavailable()) and returns the counter.
   * Later outages are handled by reconnecting in the background.
   */
  static async open(options: RedisSlidingWindowOptions): Promise<RedisSlidingWindow> {
    let client: RedisClientType;
    try {
      client = await openRedisClient({ ...options, purpose: 'rate limiting' });
    } catch (err) {
      throw rateLimitUnavailable((err as Error).cause, 'could not connect to Redis for rate limiting');
    }
    return new RedisSlidingWindow(client, {
      ...options,
      keyPrefix: options.keyPrefix ?? 'dte:rl:',
      ownsClient: true,
    });
  }

  consume(key: string, limit: number, now: number, dataEpoch?: string): Promise<WindowState> {
    const bucket = this.prefix + key;
    const epochKey = dataEpoch === undefined ? undefined : this.epochKey;
    const script = epochKey === undefined ? CONSUME : CONSUME_FRESH;
    // EVALSHA laid out by hand, not through evalScript: this runs on every check, and evalScript's async frame and
    // spreads are garbage the collector pays for. A Redis that lost the script (restart, SCRIPT FLUSH) gets EVAL.
    const clock = this.clockArg(now);
    const member = this.member();
    const argv =
      epochKey === undefined
        ? ['EVALSHA', script.sha, '1', bucket, clock, this.windowArg, String(limit), member]
        : ['EVALSHA', script.sha, '2', bucket, epochKey, clock, this.windowArg, String(limit), member, dataEpoch!];
    const state = (reply: unknown): WindowState => {
      const [allowed, count, resetAt, scriptNow] = reply as [number, number, number, number];
      if (allowed === -1) throw new StaleDataError(String(count));
      // On Redis's clock, resetAt is translated to the caller's by its distance from Redis's now.
      return { allowed: allowed === 1, count, resetAt: now + (resetAt - scriptNow) };
    };
    // One promise and one rejection handler per check, as before the late-count guard: this runs on every check.
    const sent = this.commandClient.sendCommand(argv);
    return this.run(() => sent).then(state, (err: unknown) => {
      const cause = (err as { cause?: unknown }).cause;
      if (!(cause instanceof Error) || !cause.message.startsWith('NOSCRIPT')) {
        this.forgetIfCountedLate(sent, bucket, member);
        throw err;
      }
      argv[0] = 'EVAL';
      argv[1] = script.source;
      const retried = this.commandClient.sendCommand(argv);
      return this.run(() => retried).then(state, (again: unknown) => {
        this.forgetIfCountedLate(retried, bucket, member);
        throw again;
      });
    });
  }

  /**
   * A consume past its deadline was sent and may still run (a stalled Redis runs it when it wakes): the request was
   * answered 503 all the same, so an entry it recorded then would count a check nobody was answered for. Its member
   * is known (the script's now and the suffix sent), so exactly that entry is removed.
   */
  private forgetIfCountedLate(sent: Promise<unknown>, bucket: string, member: string): void {
    sent
      .then((reply) => {
        const [allowed, , , scriptNow] = reply as [number, number, number, number];
        if (allowed !== 1) return;
        return this.run(() => this.client.sendCommand(['ZREM', bucket, `${scriptNow}:${member}`]));
      })
      // Not run, or Redis gone before the removal: the connection reports its own errors.
      .catch(() => undefined);
  }

  /** Moves the data epoch (after a commit of this process, EpochBumps); rateLimitUnavailable() when it cannot. */
  async bumpEpoch(): Promise<string> {
    const { epochKey } = this;
    if (epochKey === undefined) throw new Error('this counter was opened without a data epoch key');
    return String(await this.run(() => evalScript(this.commandClient, BUMP_EPOCH, [epochKey], [])));
  }

  async undo(key: string): Promise<void> {
    await this.run(() => this.client.sendCommand(['ZPOPMAX', this.prefix + key]));
  }

  async reset(key: string): Promise<void> {
    await this.run(() => this.client.sendCommand(['DEL', this.prefix + key]));
  }

  /** Whether Redis answers PING within the command timeout (for /healthz). */
  async ping(): Promise<boolean> {
    try {
      await this.run(() => this.client.sendCommand(['PING']));
      return true;
    } catch {
      return false;
    }
  }

  purge(): void {
    // Sorted sets expire one window after their newest entry.
  }

  /** Closes the connection if the counter owns it: pending commands are answered first, for at most a second. */
  async close(): Promise<void> {
    if (this.ownsClient) await closeRedisClient(this.client);
  }

  /** ARGV[1] of the scripts (SCRIPT_NOW): the caller's `now`, or '' for Redis TIME. */
  protected clockArg(now: number): string {
    return this.useCallerClock ? String(now) : '';
  }

  /** The suffix of a new entry's member, unique across instances and within the millisecond. */
  protected member(): string {
    return `${this.instanceId}:${(this.seq = (this.seq + 1) % Number.MAX_SAFE_INTEGER)}`;
  }

  /**
   * Runs a command within `commandTimeoutMs` (node-redis's own timeout is off, see the constructor; ReplyDeadlines
   * does withTimeout's job with one timer per connection); any failure becomes rateLimitUnavailable(), whose
   * `cause` is the command's own error, and a reply after the timeout is dropped.
   */
  protected run<T>(command: () => Promise<T>): Promise<T> {
    return this.deadlines.run(command);
  }
}
