import { every, PURGE_INTERVAL_MS, type OpenedFeature } from '../lifecycle';
import type { Logger } from '../logger';
import type { UsageRepository } from './usage-repository';
import { UsageService } from './usage-service';

/** How often the checks counted per key and day are added to the store: the console's usage lags by at most this. */
const USAGE_COUNTS_FLUSH_MS = 5_000;

/** The checks counted per key and day: added to the store every few seconds and at stop; old days dropped. */
export function openUsage(
  repository: UsageRepository,
  clock: () => Date,
  logger: Pick<Logger, 'error'>,
): OpenedFeature<UsageService> {
  const usage = new UsageService(repository, clock, logger);
  return {
    service: usage,
    jobs: [
      every('purge', PURGE_INTERVAL_MS, () => {
        usage.purge().catch((err: unknown) => logger.error({ err }, 'could not purge old usage counts'));
      }),
      every('usage-counts', USAGE_COUNTS_FLUSH_MS, () => {
        usage.flush().catch((err: unknown) => logger.error({ err }, 'could not record usage counts'));
      }),
    ],
    // Written before the usage store closes: the last few seconds of counts are not lost.
    closers: [{ name: 'the usage counts', close: () => usage.close() }],
  };
}
