import type { DataMetadata } from '../../shared/api/check';
import { isStale } from '../declarations/freshness';
import { AppError } from '../http/app-error';

/** Seconds a client should wait for the first refresh of a fresh install before asking again. */
const FIRST_REFRESH_RETRY_SECONDS = 60;

/**
 * The last successful refresh, which every answer computed from the data states; before the first one, the 503
 * `data_unavailable` (with Retry-After) every such endpoint answers.
 */
export function lastRefreshOrUnavailable(declarations: { readonly lastUpdated: string | null }): string {
  const lastUpdated = declarations.lastUpdated;
  if (lastUpdated === null) {
    throw new AppError('data_unavailable', undefined, { 'Retry-After': String(FIRST_REFRESH_RETRY_SECONDS) });
  }
  return lastUpdated;
}

/** The `metadata` of an answer computed from the data refreshed at `lastUpdated`, judged on `day`. */
export function dataMetadata(lastUpdated: string, now: Date, day: string): DataMetadata {
  return {
    last_updated: lastUpdated,
    data_source: 'disasterassist.gov.au',
    stale: isStale(lastUpdated, now),
    checked_date: day,
  };
}
