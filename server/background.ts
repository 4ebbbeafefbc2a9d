import type { AlertsService } from './alerts/alerts-service';
import type { LoginThrottle } from './auth/login-throttle';
import { startIngestService, type IngestService, type IngestServiceOptions } from './ingest/service';
import type { KeyService } from './keys/key-service';
import type { Logger } from './logger';
import type { PostcodeService } from './postcodes/postcode-service';
import type { SessionStore } from './sessions/session-store';
import type { DeclarationStore } from './declarations/declaration-store';
import type { WebhookService } from './webhooks/webhook-service';
import type { UsageService } from './usage/usage-service';

/**
 * How often expired sessions are removed from sessions.json, old login failures from memory, and expired invitations
 * and reset links from the accounts (every write of those drops them too).
 */
const PURGE_INTERVAL_MS = 10 * 60_000;
/** How often batched key usage (last_used_at) is written. */
const USAGE_FLUSH_MS = 15_000;
/** How often the checks counted per key and day are added to the store: the console's usage lags by at most this. */
const USAGE_COUNTS_FLUSH_MS = 5_000;

/** What a serving process does besides answering requests, by name. */
export type JobName = 'purge' | 'key-usage' | 'usage-counts' | 'alerts' | 'webhooks' | 'ingest' | 'billing';

interface Job {
  name: JobName;
  start(): void;
  stop(): unknown;
}

/** Links that expire (invitations, password resets): dropped by the purge. */
export interface ExpiringLinks {
  purgeExpired(): Promise<number>;
}

export interface BackgroundParts {
  logger: Logger;
  links: readonly ExpiringLinks[];
  sessions: SessionStore;
  throttle: LoginThrottle;
  keys: KeyService;
  usage: UsageService;
  alerts: AlertsService;
  webhooks: WebhookService;
  declarations: DeclarationStore;
  /** Where and from what each refresh runs (the runtime's refresh settings). */
  refresh: Omit<IngestServiceOptions, 'schedule' | 'declarations' | 'beforeScheduledRun' | 'logger'>;
  /** INGEST_SCHEDULE (cron, Sydney time). */
  schedule: string;
  /** The postcode index, whose POSTCODE_LGA_URL correspondence is renewed before each scheduled refresh. */
  postcodes: PostcodeService | null;
  /** Billing with Stripe: re-reads the subscriptions about to end (nothing to do in operator mode). */
  billing?: { startRefresh(): void; stopRefresh(): Promise<void> };
}

/** A job that runs `run` every `ms` (a timer that never keeps the process alive by itself). */
function every(name: JobName, ms: number, run: () => void): Job {
  let timer: NodeJS.Timeout | null = null;
  return {
    name,
    start() {
      timer ??= setInterval(run, ms).unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}

/**
 * Every timer and background job of a serving process, in one place: what starts at boot is `start()` here (index.ts
 * calls it once listening), and `stop()` (the first thing a stop does) ends each in reverse order and waits for the
 * work under way. Each job is started at most once.
 */
export class BackgroundWork {
  private readonly jobs: Job[];
  private readonly started = new Set<JobName>();
  private ingestService: IngestService | null = null;

  constructor(parts: BackgroundParts) {
    const { logger } = parts;
    this.jobs = [
      every('purge', PURGE_INTERVAL_MS, () => {
        parts.throttle.purge();
        parts.sessions.purge().catch((err: unknown) => logger.error({ err }, 'could not purge expired sessions'));
        for (const links of parts.links) {
          links.purgeExpired().catch((err: unknown) => logger.error({ err }, 'could not purge expired links'));
        }
        parts.usage.purge().catch((err: unknown) => logger.error({ err }, 'could not purge old usage counts'));
      }),
      every('usage-counts', USAGE_COUNTS_FLUSH_MS, () => {
        parts.usage.flush().catch((err: unknown) => logger.error({ err }, 'could not record usage counts'));
      }),
      every('key-usage', USAGE_FLUSH_MS, () => {
        parts.keys.flushUsage().catch((err: unknown) => logger.error({ err }, 'could not record key usage'));
      }),
      // Alerts follow the declarations: each refresh (this process's, `npm run ingest`'s, another instance's) is
      // processed once, and the start-up processes what was missed while stopped.
      { name: 'alerts', start: () => parts.alerts.start(), stop: () => parts.alerts.stop() },
      // Due deliveries every second, new ones at once; what a stop left unqueued is queued at start.
      { name: 'webhooks', start: () => parts.webhooks.start(), stop: () => parts.webhooks.stop() },
      // A renewal whose webhook never came is read back from Stripe before (or soon after) access would end.
      { name: 'billing', start: () => parts.billing?.startRefresh(), stop: () => parts.billing?.stopRefresh() },
      {
        name: 'ingest',
        start: () => {
          this.ingestService = startIngest(parts);
        },
        stop: () => this.ingestService?.stop(),
      },
    ];
  }

  /** The ingest schedule, once started. */
  get ingest(): IngestService | null {
    return this.ingestService;
  }

  /** Starts the jobs named (default: all), those not started yet. */
  start(only?: readonly JobName[]): void {
    for (const job of this.jobs) {
      if (this.started.has(job.name) || (only && !only.includes(job.name))) continue;
      this.started.add(job.name);
      job.start();
    }
  }

  /** Stops every job started, newest first, and waits for each one's work under way. */
  async stop(): Promise<void> {
    for (const job of [...this.jobs].reverse()) {
      if (!this.started.delete(job.name)) continue;
      await job.stop();
    }
  }
}

/**
 * Daily refresh on INGEST_SCHEDULE (Sydney time), retried after a failure; see ingest/service.ts. The
 * correspondence's cached copy ages too, so it is renewed first (the start-up run uses the one just opened).
 */
function startIngest(parts: BackgroundParts): IngestService {
  const { postcodes } = parts;
  return startIngestService({
    ...parts.refresh,
    schedule: parts.schedule,
    declarations: parts.declarations,
    beforeScheduledRun: postcodes ? () => postcodes.refresh() : undefined,
    logger: parts.logger,
  });
}
