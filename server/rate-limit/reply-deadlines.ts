interface Waiting {
  deadline: number;
  reject: (err: unknown) => void;
  settled: boolean;
}

/** Entries settled out of order wait for the ones before them; the array is compacted once most of it is dead. */
const COMPACT_AFTER = 1024;

/**
 * Bounds the wait for each command's reply (withTimeout's job) with one timer for the whole connection instead of
 * one per command: the commands wait in the order they were sent, and the timer is armed for the oldest one still
 * waiting. On the check's path that saves a timer, a race and their promises per request (about 0.9 kB of garbage
 * each, measured), which with thousands of checks a second is collector time.
 */
export class ReplyDeadlines {
  private waiting: Waiting[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | null = null;

  /** `failure(cause)` is what a command is rejected with: its own error, or the timeout's. */
  constructor(
    private readonly timeoutMs: number,
    private readonly failure: (cause: unknown) => unknown,
  ) {}

  /** `command()`'s value, or a rejection with `failure(…)` when it fails or `timeoutMs` pass without a reply. */
  run<T>(command: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting = { deadline: Date.now() + this.timeoutMs, reject, settled: false };
      let pending: Promise<T>;
      try {
        pending = command();
      } catch (err) {
        return reject(this.failure(err));
      }
      this.waiting.push(entry);
      if (!this.timer) this.arm();
      pending.then(
        (value) => {
          this.settle(entry);
          resolve(value);
        },
        (err: unknown) => {
          this.settle(entry);
          reject(this.failure(err));
        },
      );
    });
  }

  /**
   * Replies come in the order the commands went out, so the settled entry is nearly always the oldest: it leaves at
   * once, and nothing of a settled command is kept until the timer fires (it would outlive the young generation).
   */
  private settle(entry: Waiting): void {
    entry.settled = true;
    const { waiting } = this;
    while (this.head < waiting.length && waiting[this.head]!.settled) this.head++;
    if (this.head === waiting.length) {
      waiting.length = 0;
      this.head = 0;
    }
  }

  private arm(): void {
    const delay = Math.max(0, this.waiting[this.head]!.deadline - Date.now());
    this.timer = setTimeout(() => this.sweep(), delay);
    // The connection keeps the process alive while a command is out; this timer need not.
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = null;
    const now = Date.now();
    for (; this.head < this.waiting.length; this.head++) {
      const entry = this.waiting[this.head]!;
      if (entry.settled) continue;
      if (entry.deadline > now) break;
      entry.settled = true;
      entry.reject(this.failure(new Error(`no reply within ${this.timeoutMs} ms`)));
    }
    if (this.head === this.waiting.length) {
      this.waiting.length = 0;
      this.head = 0;
    } else if (this.head >= COMPACT_AFTER && this.head * 2 >= this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    if (this.head < this.waiting.length) this.arm();
  }
}
