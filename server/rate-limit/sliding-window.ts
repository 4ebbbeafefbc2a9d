/**
 * The counting behind the rate limit, apart from Express so it can be tested with a fake clock and replaced by a
 * shared implementation when the service runs on several machines (a Redis sorted set per key, ZADD/ZREMRANGEBYSCORE/
 * ZCARD in one Lua script, has exactly these semantics).
 */
export interface SlidingWindowCounter {
  /** Records a request for `key` now and reports the window as it stands, this request included. */
  hit(key: string): WindowState;
  /** Forgets the most recent request of `key` (a refused request must not count against the window). */
  undo(key: string): void;
  reset(key: string): void;
  /** Drops keys with no request left in the window; returns how many keys remain. */
  purge(): number;
  readonly size: number;
}

export interface WindowState {
  /** Requests of this key in the last `windowMs`, the current one included. */
  count: number;
  /** When the oldest counted request leaves the window (ms since epoch). */
  resetAt: number;
}

/**
 * A log of request times, oldest first, that drops from the front in O(1): a head index instead of
 * Array#shift, so a subscription with a limit in the thousands costs no more per request than one with 100.
 */
class TimestampLog {
  private times: number[] = [];
  private head = 0;

  get length(): number {
    return this.times.length - this.head;
  }

  oldest(): number | undefined {
    return this.times[this.head];
  }

  newest(): number | undefined {
    return this.length > 0 ? this.times[this.times.length - 1] : undefined;
  }

  push(t: number): void {
    this.times.push(t);
  }

  popNewest(): void {
    if (this.length > 0) this.times.pop();
  }

  dropUpTo(cutoff: number): void {
    while (this.head < this.times.length && this.times[this.head]! <= cutoff) this.head++;
    if (this.head > 32 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * An exact sliding window: every accepted request's time is kept for `windowMs`, so "no more than N in any
 * `windowMs`" holds precisely, with no fixed-window burst at the boundary. Memory is one number per request in
 * the window, and idle keys are removed by `purge`.
 */
export class InMemorySlidingWindow implements SlidingWindowCounter {
  private readonly logs = new Map<string, TimestampLog>();

  constructor(
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.logs.size;
  }

  hit(key: string): WindowState {
    const now = this.now();
    let log = this.logs.get(key);
    if (!log) {
      log = new TimestampLog();
      this.logs.set(key, log);
    }
    log.dropUpTo(now - this.windowMs);
    log.push(now);
    return { count: log.length, resetAt: log.oldest()! + this.windowMs };
  }

  undo(key: string): void {
    const log = this.logs.get(key);
    if (!log) return;
    log.popNewest();
    if (log.length === 0) this.logs.delete(key);
  }

  reset(key: string): void {
    this.logs.delete(key);
  }

  purge(): number {
    const cutoff = this.now() - this.windowMs;
    for (const [key, log] of this.logs) {
      const newest = log.newest();
      if (newest === undefined || newest <= cutoff) this.logs.delete(key);
    }
    return this.logs.size;
  }
}
