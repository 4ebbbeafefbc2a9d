import type { BackgroundJob } from './lifecycle';

/**
 * Every timer and background job of a serving process, in one place: the jobs each feature's `open*()` returned, in
 * the order the features were opened (server-runtime.ts states it). What starts at boot is `start()` here (index.ts
 * calls it once listening), and `stop()` (the first thing a stop does) ends each in reverse order and waits for the
 * work under way. Each job is started at most once.
 */
export class BackgroundWork {
  private readonly started = new Set<BackgroundJob>();

  constructor(private readonly jobs: readonly BackgroundJob[]) {}

  /** Starts the jobs named (default: all), those not started yet. */
  start(only?: readonly string[]): void {
    for (const job of this.jobs) {
      if (this.started.has(job) || (only && !only.includes(job.name))) continue;
      this.started.add(job);
      job.start();
    }
  }

  /** Stops every job started, newest first, and waits for each one's work under way. */
  async stop(): Promise<void> {
    for (const job of [...this.jobs].reverse()) {
      if (!this.started.delete(job)) continue;
      await job.stop();
    }
  }
}
