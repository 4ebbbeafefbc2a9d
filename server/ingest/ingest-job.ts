import type { DeclarationStore } from '../declarations/declaration-records';
import type { BackgroundJob } from '../lifecycle';
import type { Logger } from '../logger';
import { startIngestService, type IngestService, type IngestServiceOptions } from './service';

export interface IngestJobOptions {
  /** Where and from what each refresh runs (the runtime's refresh settings). */
  refresh: Omit<IngestServiceOptions, 'schedule' | 'declarations' | 'beforeScheduledRun' | 'logger'>;
  /** INGEST_SCHEDULE (cron, Sydney time). */
  schedule: string;
  declarations: DeclarationStore;
  /** The postcode index, whose POSTCODE_LGA_URL correspondence is renewed before each scheduled refresh. */
  postcodes: { refresh(): Promise<void> } | null;
  logger: Logger;
}

/** The ingest schedule as a background job; `service` is the schedule once the job has started. */
export interface IngestJob extends BackgroundJob {
  readonly service: IngestService | null;
}

/**
 * Daily refresh on INGEST_SCHEDULE (Sydney time), retried after a failure; see service.ts. The correspondence's
 * cached copy ages too, so it is renewed first (the start-up run uses the one just opened).
 */
export function ingestJob(options: IngestJobOptions): IngestJob {
  const { postcodes } = options;
  let service: IngestService | null = null;
  return {
    name: 'ingest',
    get service() {
      return service;
    },
    start() {
      service = startIngestService({
        ...options.refresh,
        schedule: options.schedule,
        declarations: options.declarations,
        beforeScheduledRun: postcodes ? () => postcodes.refresh() : undefined,
        logger: options.logger,
      });
    },
    stop: () => service?.stop(),
  };
}
