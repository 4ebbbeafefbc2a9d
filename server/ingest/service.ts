import { Cron } from 'croner';
import type { Logger } from 'pino';
import { ingestUserAgent } from '../http-client/fetcher';
import type { DeclarationStore } from '../declarations/declaration-records';
import { runRefresh, type RefreshOptions, type RefreshResult } from './refresh';

/** Cron times are Australian: "0 3 * * *" is 3 am in Sydney, whatever the host's time zone. */
export const SCHEDULE_TIMEZONE = 'Australia/Sydney';

/** After a failed run, try again after 5, 10, 20 … minutes (at most 2 hours) until one succeeds. */
export const RETRY_AFTER_FAILURE_MS = { first: 5 * 60_000, max: 2 * 3600_000 };

/** What every run refreshes from and into (sources, the storage registry's stores), and the schedule. */
export interface IngestServiceOptions extends Pick<
  RefreshOptions,
  'storage' | 'baseUrl' | 'drfaCsvUrl' | 'browser' | 'minDeclarations' | 'clock' | 'fetcher'
> {
  /** INGEST_SCHEDULE (cron). */
  schedule: string;
  /** The server's open declaration store: whether another process's refresh has stored data meanwhile. */
  declarations: DeclarationStore;
  /** Runs before each run but the start-up one (the server renews the postcode correspondence there). */
  beforeScheduledRun?: () => Promise<void>;
  logger: Logger;
  retryAfterFailure?: { first: number; max: number };
  /** Injected by tests instead of a real refresh. */
  refresh?: typeof runRefresh;
}

export interface IngestService {
  /** Runs a refresh now, or joins the one already running. */
  runNow(trigger: 'startup' | 'schedule' | 'retry'): Promise<RefreshResult>;
  /** When the next scheduled run is due. */
  nextRun(): Date | null;
  /**
   * When the next run may bring data: the pending retry after a failure, otherwise the next scheduled run; null while
   * a run is under way. What a refused check (503 data_unavailable) tells its caller to wait for, instead of a guess.
   */
  nextAttempt(): Date | null;
  /** Stops the schedule and cancels a running refresh (it writes nothing). */
  stop(): Promise<void>;
}

/**
 * The server's side of the ingest: a daily refresh on INGEST_SCHEDULE, a first refresh at start-up when there is
 * no data yet, and retries with growing delays after a failure. Runs never overlap here; the lock in runRefresh
 * keeps them from overlapping with `npm run ingest` too.
 */
export function startIngestService(options: IngestServiceOptions): IngestService {
  const refresh = options.refresh ?? runRefresh;
  const backoff = options.retryAfterFailure ?? RETRY_AFTER_FAILURE_MS;
  const abort = new AbortController();
  let running: Promise<RefreshResult> | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let retryDue: Date | null = null;
  let failures = 0;
  /** Whether a refresh (by any process) has stored data since `at` (ISO time). */
  const refreshedSince = (at: string) => {
    const lastUpdated = options.declarations.current?.last_updated;
    return typeof lastUpdated === 'string' && lastUpdated >= at;
  };
  let stopped = false;

  const retryAfter = (delay: number, retry: () => void) => {
    retryDue = new Date(Date.now() + delay);
    retryTimer = setTimeout(retry, delay);
    retryTimer.unref();
  };
  const scheduleRetry = (result: RefreshResult, startedAt: string) => {
    if (result.ok) failures = 0;
    else if (result.error.kind === 'busy' && !stopped) {
      // Another process refreshes (another instance, `npm run ingest`). Should it die before storing anything,
      // nobody would refresh until the next scheduled time: look again after the first retry delay.
      retryAfter(backoff.first, () => {
        if (refreshedSince(startedAt)) {
          options.logger.info('the refresh that was running elsewhere stored its data: no need to run again');
        } else void runNow('retry');
      });
    } else if (!stopped) {
      const delay = Math.min(backoff.max, backoff.first * 2 ** failures++);
      options.logger.warn({ retry_in_s: Math.round(delay / 1000) }, 'refresh will be retried');
      retryAfter(delay, () => void runNow('retry'));
    }
  };

  const runNow = (trigger: 'startup' | 'schedule' | 'retry'): Promise<RefreshResult> => {
    if (running) return running;
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
    retryDue = null;
    options.logger.info({ trigger }, 'refreshing declarations');
    running = (async () => {
      if (trigger !== 'startup') await options.beforeScheduledRun?.();
      const startedAt = new Date().toISOString();
      const result = await refresh(refreshOptions(options, trigger, abort.signal));
      scheduleRetry(result, startedAt);
      return result;
    })().finally(() => {
      running = null;
    });
    return running;
  };

  const cron = scheduleRuns(options, () => runNow('schedule'));

  return {
    runNow,
    nextRun: () => cron.nextRun(),
    nextAttempt: () => (running ? null : (retryDue ?? cron.nextRun())),
    async stop() {
      stopped = true;
      cron.stop();
      if (retryTimer) clearTimeout(retryTimer);
      abort.abort();
      await running?.catch(() => undefined);
    },
  };
}

/** One run's refresh: the service's sources and stores, cancelled by the service's stop. */
function refreshOptions(
  options: IngestServiceOptions,
  trigger: 'startup' | 'schedule' | 'retry',
  signal: AbortSignal,
): RefreshOptions {
  return {
    storage: options.storage,
    baseUrl: options.baseUrl,
    drfaCsvUrl: options.drfaCsvUrl,
    browser: options.browser,
    minDeclarations: options.minDeclarations,
    clock: options.clock,
    fetcher: { userAgent: ingestUserAgent(), ...options.fetcher },
    trigger: trigger === 'retry' ? 'schedule' : trigger,
    logger: options.logger,
    signal,
  };
}

/** Cron times in Sydney time; `protect` skips a tick while the previous one still runs, and a crash is only logged. */
function scheduleRuns(options: Pick<IngestServiceOptions, 'schedule' | 'logger'>, run: () => Promise<unknown>): Cron {
  return new Cron(
    options.schedule,
    {
      timezone: SCHEDULE_TIMEZONE,
      protect: true,
      catch: (err) => options.logger.error({ err }, 'scheduled refresh crashed'),
    },
    async () => {
      await run();
    },
  );
}
