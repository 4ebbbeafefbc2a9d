import { BATCH_MAX_ITEMS, type CheckBatchRequest } from '../../shared/api/check-batch';
import { FIRST_CHECK_DATE } from '../../shared/api/check';
import { addDays } from '../../shared/domain/dates';
import type { LocalityRow } from '../../server/postcodes/postcode-index';
import { loadPosts, type LoadResult } from '../lib/load-check';

type Item = CheckBatchRequest['items'][number];

/**
 * A practice's appointment list as the list page sends it: 500 rows over the sampled postcodes, every third with the
 * patient's suburb and every fifth with a service date (a claim audit's), repeated request after request — so after
 * the first, every answer comes from the check's cache, as a list checked again the same day does.
 */
export function appointmentList(sample: readonly string[], rows: readonly LocalityRow[]): string {
  const suburbOf = new Map<string, string>();
  for (const row of rows) if (!suburbOf.has(row.postcode)) suburbOf.set(row.postcode, row.locality);
  const items: Item[] = Array.from({ length: BATCH_MAX_ITEMS }, (_, i) => {
    const postcode = sample[i % sample.length]!;
    return {
      postcode,
      ...(i % 3 === 0 && suburbOf.has(postcode) ? { suburb: suburbOf.get(postcode)! } : {}),
      ...(i % 5 === 0 ? { date: '2025-03-10' } : {}),
    };
  });
  return JSON.stringify({ items: items });
}

/**
 * A quarter's claim audit at its worst: `lists` batches of 500 distinct questions (postcode and service date, dates
 * from 2007 on), 12,000 in all — far more answers than the cache keeps, so each is computed as it is asked.
 */
export function uncachedAudits(sample: readonly string[], lists = 24): string[] {
  const days = 7_000;
  return Array.from({ length: lists }, (_, list) => {
    const items: Item[] = Array.from({ length: BATCH_MAX_ITEMS }, (_, i) => ({
      // The day repeats every 7,000 questions, each time with another postcode: no two questions are the same.
      postcode: sample[(i + 7 * list) % sample.length]!,
      date: addDays(addDays(FIRST_CHECK_DATE, 366), (list * BATCH_MAX_ITEMS + i) % days),
    }));
    return JSON.stringify({ items });
  });
}

/** Drives `POST /api/v1/check-batch` on `url` (one of our own child servers) with `bodies` in turn. */
export function loadBatch(options: {
  url: string;
  apiKey: string;
  bodies: readonly string[];
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  return loadPosts({ ...options, path: '/api/v1/check-batch' });
}
