import type { RedisClientType } from 'redis';
import { closeRedisClient, evalScript, luaScript, openRedisClient } from '../storage/redis-client';
import { ReplyDeadlines } from '../rate-limit/reply-deadlines';
import { rateLimitUnavailable } from '../rate-limit/sliding-window';
import type { AllowanceTake, BatchAllowance } from './batch-allowance';

/**
 * Take all or nothing, in one atomic step across every instance: KEYS[1] = prefix .. subscription .. day, the rows
 * taken that day; ARGV = rows, per day. Returns {taken 0/1, left}. The key outlives its day by two (any instance's
 * clock a little off still finds it), then expires by itself.
 */
const TAKE = luaScript(`
local rows, perDay = tonumber(ARGV[1]), tonumber(ARGV[2])
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used + rows > perDay then
  return {0, math.max(0, perDay - used)}
end
used = redis.call('INCRBY', KEYS[1], rows)
redis.call('EXPIRE', KEYS[1], 259200)
return {1, perDay - used}
`);

export interface RedisBatchAllowanceOptions {
  url: string;
  perDay: number;
  /** `${REDIS_KEY_PREFIX}batch:`. */
  keyPrefix: string;
  /** Per command, before the batch is answered 503. Default 500 ms. */
  commandTimeoutMs?: number;
  onError?: (err: Error) => void;
}

/** The daily row allowance in Redis: one counter per subscription and Sydney day, exact however many instances take. */
export class RedisBatchAllowance implements BatchAllowance {
  private readonly deadlines: ReplyDeadlines;

  private constructor(
    private readonly client: RedisClientType,
    readonly perDay: number,
    private readonly keyPrefix: string,
    commandTimeoutMs: number,
    private readonly onError: (err: Error) => void,
  ) {
    this.deadlines = new ReplyDeadlines(commandTimeoutMs, (cause) => rateLimitUnavailable(cause));
  }

  /** Connects (one attempt; rate_limit_unavailable naming the host when it fails). */
  static async open(options: RedisBatchAllowanceOptions): Promise<RedisBatchAllowance> {
    let client: RedisClientType;
    try {
      client = await openRedisClient({ ...options, purpose: 'the daily allowance of list rows' });
    } catch (err) {
      throw rateLimitUnavailable((err as Error).cause, (err as Error).message);
    }
    return new RedisBatchAllowance(
      client,
      options.perDay,
      options.keyPrefix,
      options.commandTimeoutMs ?? 500,
      options.onError ?? (() => undefined),
    );
  }

  async take(subscriptionId: string, day: string, rows: number): Promise<AllowanceTake> {
    const key = `${this.keyPrefix}${subscriptionId}:${day}`;
    const script = evalScript(this.client, TAKE, [key], [String(rows), String(this.perDay)]) as Promise<
      [number, number]
    >;
    try {
      const reply = await this.deadlines.run(() => script);
      return { ok: reply[0] === 1, left: reply[1] };
    } catch (err) {
      this.giveBackIfTakenLate(script, key, rows);
      throw err;
    }
  }

  /**
   * A script past its deadline was sent and may still run (a stalled Redis runs it when it wakes): the batch is
   * answered 503 all the same, so rows it took then would be spent on answers nobody received.
   */
  private giveBackIfTakenLate(script: Promise<[number, number]>, key: string, rows: number): void {
    script
      .then(([taken]) =>
        taken === 1 ? this.deadlines.run(() => this.client.sendCommand(['DECRBY', key, String(rows)])) : undefined,
      )
      .catch((err: unknown) => {
        // Not run, or Redis gone before the refund: the error was or will be reported by the connection.
        if (err instanceof Error) this.onError(err);
      });
  }

  close(): Promise<void> {
    return closeRedisClient(this.client);
  }
}
