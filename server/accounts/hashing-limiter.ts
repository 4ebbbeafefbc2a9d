import pLimit, { type LimitFunction } from 'p-limit';
import { ContractError } from '../contract-error';

/**
 * Every place in the line is taken: 503 server_busy with Retry-After, rather than queueing more work the server would
 * only finish long after the client gave up. The default line (2 running, 32 waiting) drains in about a second at
 * ~70 ms a hash.
 */
export const hashingBusy = (): ContractError => new ContractError('server_busy', { retryAfterSeconds: 1 });

/** A place held in the line: run one task with it, or give it back unused. */
export interface HashingPlace {
  /** Runs `task` as soon as a lane is free, and gives the place back when it settles. Only once per place. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Gives the place back without running anything. Harmless after `run`, and more than once. */
  release(): void;
}

export interface HashingLimiterOptions {
  /** Tasks running at once. Default 2. */
  concurrency?: number;
  /** Places held beyond the running ones; one more is refused with hashingBusy(). Default 32. */
  maxWaiting?: number;
}

/**
 * Bounds memory-hard password work (scrypt holds ~32 MiB while it runs): at most `concurrency` tasks run, at most
 * `maxWaiting` more wait, in arrival order, and anything beyond is refused at once. Memory then stays bounded
 * whatever arrives, and a client waits at most the line's length instead of behind every request of a flood.
 *
 * A place is taken (`reserve`, synchronous) before the work is known to be needed, so a caller can learn that it will
 * be refused before it does anything it cannot undo — sign-in reserves before the login throttle counts the attempt.
 */
export class HashingLimiter {
  readonly concurrency: number;
  readonly maxWaiting: number;
  private readonly lanes: LimitFunction;
  private held = 0;

  constructor(options: HashingLimiterOptions = {}) {
    this.concurrency = options.concurrency ?? 2;
    this.maxWaiting = options.maxWaiting ?? 32;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new RangeError('concurrency must be ≥ 1');
    if (!Number.isInteger(this.maxWaiting) || this.maxWaiting < 0) throw new RangeError('maxWaiting must be ≥ 0');
    this.lanes = pLimit(this.concurrency);
  }

  /** Tasks running now. */
  get running(): number {
    return this.lanes.activeCount;
  }

  /** Places held that are not running (waiting for a lane, or reserved and not yet used). */
  get waiting(): number {
    return this.held - this.lanes.activeCount;
  }

  /** Takes a place in the line, or throws hashingBusy() when all `concurrency + maxWaiting` are held. */
  reserve(): HashingPlace {
    if (this.held >= this.concurrency + this.maxWaiting) throw hashingBusy();
    this.held++;
    let released = false;
    let used = false;
    const release = () => {
      if (released) return;
      released = true;
      this.held--;
    };
    return {
      run: <T>(task: () => Promise<T>): Promise<T> => {
        if (used || released) return Promise.reject(new Error('a hashing place runs one task'));
        used = true;
        return this.lanes(task).finally(release);
      },
      release: () => {
        // A place whose task is waiting or running is given back when it settles, not before: otherwise the line
        // would admit more than it can hold.
        if (!used) release();
      },
    };
  }

  /** Runs `task` in a place of its own; rejects with hashingBusy() when the line is full. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    return this.reserve().run(task);
  }
}
