import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { SlidingWindowCounter } from './sliding-window';

/** express-rate-limit's Store interface over a SlidingWindowCounter. */
export class SlidingWindowStore implements Store {
  /** The counter lives in this process: express-rate-limit warns if such a store is shared between limiters. */
  readonly localKeys = true;
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly counter: SlidingWindowCounter,
    private readonly purgeEveryMs = 60_000,
  ) {}

  init(_options: Options): void {
    this.purgeTimer = setInterval(() => this.counter.purge(), this.purgeEveryMs);
    this.purgeTimer.unref();
  }

  increment(key: string): ClientRateLimitInfo {
    const { count, resetAt } = this.counter.hit(key);
    return { totalHits: count, resetTime: new Date(resetAt) };
  }

  decrement(key: string): void {
    this.counter.undo(key);
  }

  resetKey(key: string): void {
    this.counter.reset(key);
  }

  shutdown(): void {
    clearInterval(this.purgeTimer);
  }
}
