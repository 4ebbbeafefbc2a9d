import { sydneyToday } from '../../shared/domain/dates';
import { endOfSydneyDay } from '../accounts/sydney-time';

/** What a take from the allowance gave: all the rows asked for, or nothing. */
export interface AllowanceTake {
  ok: boolean;
  /** Rows left that day: after the take, or as they stand when it was refused. */
  left: number;
}

/**
 * The rows an organisation may check in batches per Sydney day (BATCH_ROWS_PER_DAY): a list of 5,000 postcodes is
 * ten requests against the 100/minute check limit, so without a row allowance one key could ask 50,000 questions a
 * minute. In this process for one instance; in Redis, exact across instances (redis-batch-allowance.ts).
 */
export interface BatchAllowance {
  readonly perDay: number;
  /**
   * Takes `rows` from the subscription's allowance of Sydney day `day` (YYYY-MM-DD), all or nothing: a batch is
   * answered whole or refused whole, so a list is never half answered without a word. Rejects with the contract's
   * rate_limit_unavailable when the shared counter cannot be reached.
   */
  take(subscriptionId: string, day: string, rows: number): Promise<AllowanceTake>;
  close(): Promise<void>;
}

/** Seconds from `now` until the next Sydney midnight, when every allowance starts again (at least 1: Retry-After). */
export function secondsUntilSydneyMidnight(now: Date): number {
  return Math.max(1, Math.ceil((endOfSydneyDay(sydneyToday(now)).getTime() - now.getTime()) / 1000));
}

/** The allowance in this process: one instance serves (the JSON files' backend). */
export class InMemoryBatchAllowance implements BatchAllowance {
  /** Per subscription, the day counted and the rows taken that day: a new day starts from nothing. */
  private readonly used = new Map<string, { day: string; rows: number }>();

  constructor(readonly perDay: number) {}

  take(subscriptionId: string, day: string, rows: number): Promise<AllowanceTake> {
    const held = this.used.get(subscriptionId);
    const used = held?.day === day ? held.rows : 0;
    if (used + rows > this.perDay) return Promise.resolve({ ok: false, left: Math.max(0, this.perDay - used) });
    this.used.set(subscriptionId, { day, rows: used + rows });
    return Promise.resolve({ ok: true, left: this.perDay - used - rows });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
