import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { SlidingWindowCounter, WindowState } from './sliding-window';

/**
 * The one way this store departs from express-rate-limit's Store contract, because the library cannot express what
 * the sliding window needs (check-rate-limit.ts, point 1): express-rate-limit hands its store nothing but a key, yet
 * refusing without counting needs the limit at the moment of counting (increment-then-decrement would let a refused
 * request occupy a slot while others arrive). So the key generator puts the limit in front of the bucket and the
 * store takes it apart again. The bucket alone names the window, so a changed limit applies to the requests already
 * counted. The data epoch the request was identified on (storage/postgres/data-epoch.ts) rides along the same way,
 * after an `@`.
 */
export function storeKey(bucket: string, limit: number, dataEpoch?: string): string {
  return dataEpoch === undefined ? `${limit}/${bucket}` : `${limit}@${dataEpoch}/${bucket}`;
}

export function parseStoreKey(key: string): { bucket: string; limit: number; dataEpoch?: string } {
  const slash = key.indexOf('/');
  const head = slash > 0 ? key.slice(0, slash) : '';
  const at = head.indexOf('@');
  const limit = Number(at < 0 ? head : head.slice(0, at));
  if (!head || !Number.isSafeInteger(limit) || limit < 1) throw new Error(`Not a rate-limit store key: ${key}`);
  const bucket = key.slice(slash + 1);
  return at < 0 ? { bucket, limit } : { bucket, limit, dataEpoch: head.slice(at + 1) };
}

/** The bucket of a store key; a bare bucket too, as someone calling the middleware's `resetKey` would pass. */
function bucketOf(key: string): string {
  try {
    return parseStoreKey(key).bucket;
  } catch {
    return key;
  }
}

function rateLimitInfo(state: WindowState, limit: number): ClientRateLimitInfo {
  return {
    totalHits: state.allowed ? state.count : Math.max(state.count, limit) + 1,
    resetTime: new Date(state.resetAt),
  };
}

/**
 * express-rate-limit's Store over a SlidingWindowCounter, with the limiter's clock:
 * - `init(options)`: starts purging idle buckets every `options.windowMs` (express-rate-limit passes its options);
 * - `increment(key)`: `{ totalHits, resetTime }`, the count including this request and when a slot next frees; a
 *   refused request is reported past the limit without being recorded (see `storeKey`);
 * - `decrement(key)`, `resetKey(key)`: give back the newest request, forget the bucket (a bare bucket works too);
 * - `shutdown()`: stops the purge timer.
 * No `get`: nothing here reads a bucket without counting (the middleware's `getKey` would throw).
 */
export class SlidingWindowStore implements Store {
  /** Each limiter gets its own store instance; express-rate-limit checks this to catch double counting. */
  readonly localKeys = true;
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly counter: SlidingWindowCounter,
    private readonly now: () => number = Date.now,
    /** How often idle keys are forgotten; with the default an idle key is held at most two windows. */
    private readonly purgeEveryMs?: number,
  ) {}

  init(options: Options): void {
    clearInterval(this.purgeTimer);
    // A failed purge (a shared store being unreachable) is simply tried again next time.
    this.purgeTimer = setInterval(() => this.purge().catch(() => undefined), this.purgeEveryMs ?? options.windowMs);
    this.purgeTimer.unref();
  }

  /**
   * Counts the request if the window has room. A refused request is reported as one past the limit without being
   * recorded, which is what makes express-rate-limit answer with its handler (429).
   */
  increment(key: string): ClientRateLimitInfo | Promise<ClientRateLimitInfo> {
    const { bucket, limit, dataEpoch } = parseStoreKey(key);
    const state = this.counter.consume(bucket, limit, this.now(), dataEpoch);
    // The in-process counter answers at once; only a shared one needs the extra turn of a promise.
    return state instanceof Promise ? state.then((s) => rateLimitInfo(s, limit)) : rateLimitInfo(state, limit);
  }

  async decrement(key: string): Promise<void> {
    await this.counter.undo(bucketOf(key));
  }

  async resetKey(key: string): Promise<void> {
    await this.counter.reset(bucketOf(key));
  }

  async purge(): Promise<void> {
    await this.counter.purge(this.now());
  }

  shutdown(): void {
    clearInterval(this.purgeTimer);
    this.purgeTimer = undefined;
  }
}
