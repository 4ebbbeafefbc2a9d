import { ContractError } from '../contract-error';

/**
 * The counting behind the rate limit, kept apart from Express so it can be tested with a fake clock and replaced by
 * a shared implementation when the service runs as several instances (./README.md: a Redis sorted set per key and
 * one Lua script give exactly these semantics).
 *
 * Semantics, for every implementation:
 * - A request at time `t` counts for the half-open interval `[t, t + windowMs)`. So in any interval of `windowMs`
 *   no key has more than `limit` requests accepted, and a request made exactly `windowMs` after the oldest counted
 *   one no longer sees it.
 * - `consume` decides and records in one step: a refused request is never recorded, not even for a moment, so a
 *   429 does not count against the window and concurrent requests cannot over-count one another.
 * - The caller passes `now`, so the limiter, its headers and the tests all read one clock.
 */
export interface SlidingWindowCounter {
  /**
   * Accepts and records a request for `key` at `now` if fewer than `limit` (a positive integer) are counted.
   * `dataEpoch`, for a counter that `checksDataEpoch`: the data epoch the caller was identified on
   * (storage/postgres/data-epoch.ts). When the shared epoch has moved past it, nothing is counted or refused and the
   * call rejects with StaleDataError, so that the caller can catch up and be identified again before it is counted.
   * Other counters ignore it.
   */
  consume(key: string, limit: number, now: number, dataEpoch?: string): WindowState | Promise<WindowState>;
  /** Whether `consume` compares `dataEpoch` with the shared one (RedisSlidingWindow opened with an epoch key). */
  readonly checksDataEpoch?: boolean;
  /** Forgets the most recent accepted request of `key` (express-rate-limit's `decrement`). */
  undo(key: string): void | Promise<void>;
  reset(key: string): void | Promise<void>;
  /** Forgets keys with nothing left in the window. A shared store whose entries expire by themselves may do nothing. */
  purge(now: number): void | Promise<void>;
}

/** Retry-After of a 503 `rate_limit_unavailable`: a shared counter reconnects within about a second. */
export const RATE_LIMIT_UNAVAILABLE_RETRY_SECONDS = 2;

/**
 * What a shared counter that cannot be reached (Redis down, a command timing out) rejects with: 503
 * `rate_limit_unavailable` with Retry-After, never unlimited, never a crash. `cause` says what failed, for the log.
 * `message` only where it is no answer to a request (a connection that could not be opened at start-up).
 */
export function rateLimitUnavailable(cause?: unknown, message?: string): ContractError {
  return new ContractError('rate_limit_unavailable', {
    retryAfterSeconds: RATE_LIMIT_UNAVAILABLE_RETRY_SECONDS,
    cause,
    ...(message === undefined ? {} : { message }),
  });
}

export interface WindowState {
  allowed: boolean;
  /** Requests of this key counted in the window, this one included if it was accepted. */
  count: number;
  /**
   * When a request would next be accepted: the time the oldest counted request leaves the window. (If the limit was
   * lowered below what is already counted, the time enough of them have left.) Same clock as `now`, in ms.
   */
  resetAt: number;
}

/**
 * Request times of one key, oldest first. The front is dropped by moving a head index instead of Array#shift and the
 * array is compacted only when at least half of it is dead, so a hit costs amortised O(1) whatever the limit, and
 * the n-th oldest entry is an index away.
 */
class TimestampLog {
  private times: number[];
  private head = 0;

  constructor(first: number) {
    // A literal of one element: most keys (one-off IPs, light users) never hold more, and [] would reserve 17 slots.
    this.times = [first];
  }

  get length(): number {
    return this.times.length - this.head;
  }

  /** The i-th oldest time still held (0 = oldest). */
  at(i: number): number {
    return this.times[this.head + i]!;
  }

  newest(): number {
    return this.times[this.times.length - 1]!;
  }

  push(t: number): void {
    this.times.push(t);
  }

  popNewest(): void {
    if (this.length > 0) this.times.pop();
  }

  dropUpTo(cutoff: number): void {
    const times = this.times;
    let head = this.head;
    while (head < times.length && times[head]! <= cutoff) head++;
    if (head > 16 && head * 2 >= times.length) {
      this.times = times.slice(head);
      head = 0;
    }
    this.head = head;
  }
}

/**
 * An exact sliding window in this process: every accepted request's time is kept for `windowMs`, so the limit holds
 * precisely, with none of a fixed window's double burst at the boundary. Memory is one number per request in the
 * window (at most the key's limit) plus a small record per key, and `purge` removes keys that have gone idle.
 */
export class InMemorySlidingWindow implements SlidingWindowCounter {
  private readonly logs = new Map<string, TimestampLog>();

  constructor(readonly windowMs: number) {}

  /** Keys currently held (idle ones included until the next purge). */
  get size(): number {
    return this.logs.size;
  }

  consume(key: string, limit: number, now: number): WindowState {
    let log = this.logs.get(key);
    log?.dropUpTo(now - this.windowMs);
    const count = log?.length ?? 0;
    if (count < limit) {
      if (log) log.push(now);
      else this.logs.set(key, (log = new TimestampLog(now)));
      return { allowed: true, count: count + 1, resetAt: log.at(0) + this.windowMs };
    }
    if (!log || count === 0) return { allowed: false, count, resetAt: now + this.windowMs };
    // A slot frees when the entry that keeps the count at `limit` leaves: the oldest one, unless the limit was
    // lowered below what is already counted.
    return { allowed: false, count, resetAt: log.at(Math.min(count - limit, count - 1)) + this.windowMs };
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

  purge(now: number): void {
    const cutoff = now - this.windowMs;
    for (const [key, log] of this.logs) {
      if (log.length === 0 || log.newest() <= cutoff) this.logs.delete(key);
    }
  }
}
