import { syncWithin } from '../../http/fresh-data';
import type { Logger } from '../../logger';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express declares Locals in this namespace.
  namespace Express {
    interface Locals {
      /**
       * The data epoch this process's data was at least as new as when identifyApiKey looked the caller up; the
       * rate-limit script counts the request only if the shared epoch still says the same. Unset: not compared.
       */
      dataEpoch?: string;
    }
  }
}

/**
 * A counter's refusal to count a request identified on data older than the shared data epoch `epoch`: nothing was
 * counted or refused. The caller catches up (DataEpoch.catchUp), identifies the request again and counts it then.
 */
export class StaleDataError extends Error {
  override readonly name = 'StaleDataError';
  constructor(readonly epoch: string) {
    super(`data changed since this process last caught up (data epoch ${epoch})`);
  }
}

/**
 * This process's side of the data epoch, the value in Redis that every committed write of a PostgreSQL document
 * moves before its caller is answered (EpochBumps): `known` is an epoch such that this process holds every write
 * whose bump came before it. The check's rate-limit script compares it with Redis's in the same round trip as the
 * count, so a check that finds nothing new costs no query; one that finds the epoch moved waits for `catchUp`.
 *
 * Why that is enough for "refused on the very next request": a write answered on any instance has moved the epoch
 * before its answer, so a request arriving afterwards reads a newer epoch than the one this process knew, and is
 * identified again only after a sync that started once that epoch was read (DataVersions.sync sees everything
 * committed before it is called).
 */
export class DataEpoch {
  /** '' matches no epoch: the first check of the process catches up. */
  private value = '';
  private learned = 0;
  private applied = 0;
  private readonly wait: (synced: Promise<void>) => Promise<boolean>;

  constructor(
    private readonly sync: () => Promise<void>,
    logger: Pick<Logger, 'warn'>,
  ) {
    this.wait = syncWithin(logger);
  }

  get known(): string {
    return this.value;
  }

  /**
   * Syncs with the database (a query shared by every request that asks at the same time) and then knows `epoch`.
   * Resolves true once synced; false when the database gave no answer within 500 ms (syncWithin): the request is
   * then answered from memory, as without Redis, and `known` stays behind so that the next request tries again.
   */
  catchUp(epoch: string): Promise<boolean> {
    // Epochs are compared for equality, not order, so the one read last wins even if its sync ends first.
    const order = ++this.learned;
    const synced = this.sync().then(() => {
      if (order < this.applied) return;
      this.applied = order;
      this.value = epoch;
    });
    return this.wait(synced);
  }
}

export interface EpochBumpsOptions {
  /** Moves the shared epoch (RedisSlidingWindow.bumpEpoch); rejects when Redis cannot be reached. */
  bump: () => Promise<unknown>;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** How long a writer waits for a bump that fails before it is answered anyway. Default 1 s. */
  waitMs?: number;
  /** How often a bump that could not be made is tried again in the background. Default 1 s. */
  retryEveryMs?: number;
}

const FIRST_RETRY_MS = 25;
const LOG_EVERY_MS = 30_000;

/**
 * Moves the data epoch after each commit of this process, before the writer's caller gets its answer
 * (DataVersions.committed, called by PostgresDocumentStore once its commit is held in memory).
 *
 * A bump that fails (Redis unreachable from this process) is retried for up to `waitMs`, then the writer is answered
 * anyway and the bump retried every second until one succeeds: the commit stands, and an error would tell its caller
 * it did not (a key shown only once would be lost; a webhook or alert job would redo work). Meanwhile the other
 * instances learn of the commit by NOTIFY or their once-a-second poll, and while Redis is out for them too their
 * checks answer 503 anyway. Any bump made after a commit announces it, so one success settles every pending one.
 */
export class EpochBumps {
  private commits = 0;
  /** Every commit up to this number has been announced. */
  private announced = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private retrying = false;
  private closed = false;
  private lastLogged = 0;
  private failing = false;
  private readonly waitMs: number;
  private readonly retryEveryMs: number;

  constructor(private readonly options: EpochBumpsOptions) {
    this.waitMs = options.waitMs ?? 1_000;
    this.retryEveryMs = options.retryEveryMs ?? 1_000;
  }

  /** After a commit: resolves once a bump made after it has succeeded, or after `waitMs` of failures. Never rejects. */
  async afterCommit(): Promise<void> {
    const commit = ++this.commits;
    const deadline = Date.now() + this.waitMs;
    for (let delay = FIRST_RETRY_MS; ; delay *= 2) {
      if (this.announced >= commit || (await this.tryBump())) return;
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, left)));
    }
    this.retryLater();
  }

  /** One last try for commits not yet announced (a CLI about to exit); then no more retries. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.retryTimer = null;
    if (this.announced < this.commits) await this.tryBump();
  }

  private async tryBump(): Promise<boolean> {
    const covers = this.commits;
    try {
      await this.options.bump();
    } catch (err) {
      this.report(err);
      return false;
    }
    this.announced = Math.max(this.announced, covers);
    if (this.failing) {
      this.failing = false;
      this.options.logger.info('told the other instances of the changes made while Redis was unreachable');
    }
    return true;
  }

  private retryLater(): void {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setInterval(() => {
      if (this.announced >= this.commits) {
        clearInterval(this.retryTimer!);
        this.retryTimer = null;
        return;
      }
      // A connection attempt and a command may take longer than the interval: one try at a time.
      if (this.retrying) return;
      this.retrying = true;
      void this.tryBump().finally(() => (this.retrying = false));
    }, this.retryEveryMs);
    this.retryTimer.unref();
  }

  private report(err: unknown): void {
    this.failing = true;
    if (Date.now() - this.lastLogged < LOG_EVERY_MS) return;
    this.lastLogged = Date.now();
    this.options.logger.warn(
      { err },
      'could not tell the other instances of a change through Redis (retrying): they see it within about a second',
    );
  }
}
