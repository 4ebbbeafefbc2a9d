import type { UsageCounts } from '../../shared/api/usage';

export type UsageKind = keyof UsageCounts;

/** What one process counted for one key on one day since its last flush. */
export interface UsageIncrement extends UsageCounts {
  subscription_id: string;
  key_id: string;
  /** Sydney day, YYYY-MM-DD. */
  day: string;
}

/** One key's counts for one day, as stored. */
export type UsageRow = UsageIncrement;

/**
 * Where the checks are counted per key per day: DATA_DIR/usage.json, or PostgreSQL's `key_usage` rows. Increments
 * are added (never set), so however many instances flush, the sums are exact.
 */
export interface UsageRepository {
  add(increments: readonly UsageIncrement[]): Promise<void>;
  /** The subscription's rows from `fromDay` to `toDay` (inclusive), any order. */
  read(subscriptionId: string, fromDay: string, toDay: string): Promise<UsageRow[]>;
  /** Drops the days before `day` (retention). */
  purgeBefore(day: string): Promise<void>;
}
