import type { DataMetadata } from '../../shared/api/check';
import { isStale } from '../declarations/freshness';
import { ContractError } from '../contract-error';

/** Seconds to wait while a refresh is under way, or when no schedule says when the next one is: a poll, not a promise. */
const REFRESH_POLL_SECONDS = 60;

/**
 * Seconds until the next refresh attempt may bring data: the schedule's retry after a failed first refresh is 5
 * minutes and more, and a client told "60" would ask (and tell a GP to try) again for nothing.
 */
export function secondsUntilData(nextAttempt: Date | null | undefined, now: Date): number {
  if (!nextAttempt) return REFRESH_POLL_SECONDS;
  return Math.max(1, Math.ceil((nextAttempt.getTime() - now.getTime()) / 1000));
}

/**
 * The last successful refresh, which every answer computed from the data states; before the first one, the 503
 * `data_unavailable` every such endpoint answers, with Retry-After up to the next refresh attempt.
 */
export function lastRefreshOrUnavailable(
  declarations: { readonly lastUpdated: string | null; nextRefreshAttempt?: () => Date | null | undefined },
  now: Date = new Date(),
): string {
  const lastUpdated = declarations.lastUpdated;
  if (lastUpdated === null) {
    const retryAfter = secondsUntilData(declarations.nextRefreshAttempt?.(), now);
    throw new ContractError('data_unavailable', { retryAfterSeconds: retryAfter });
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
