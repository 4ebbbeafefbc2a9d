import { z } from 'zod';
import { endpoint } from './endpoint';

/** Days of usage kept, and the most a request may ask for. */
export const USAGE_RETENTION_DAYS = 400;

/** GET /api/v1/usage?days=N[&format=csv]: the last N days (Sydney), today included. */
export const UsageQuery = z
  .object({
    days: z.coerce.number().int().min(1).max(USAGE_RETENTION_DAYS).default(30),
    format: z.enum(['json', 'csv']).default('json'),
  })
  .strict();

/** How a check (or a read with an API key) of one key ended. */
export const UsageCounts = z.object({
  answered: z.number().int().nonnegative().meta({ description: 'Answered 2xx' }),
  refused: z.number().int().nonnegative().meta({ description: 'Refused 4xx other than 429 (bad input, inactive)' }),
  rate_limited: z.number().int().nonnegative().meta({ description: 'Refused 429 (over the limit)' }),
  batch_rows: z.number().int().nonnegative().meta({
    description:
      'Rows checked in lists (POST /api/v1/check-batch); each batch is also one request in answered/refused/rate_limited',
  }),
});
export type UsageCounts = z.infer<typeof UsageCounts>;

export const UsageDay = UsageCounts.extend({
  date: z.string().meta({ description: 'The day in Sydney, YYYY-MM-DD' }),
  /** The same day by key (keys with any use that day), so a rotated key's use is told apart. */
  keys: z.array(UsageCounts.extend({ key_prefix: z.string() })),
}).meta({ id: 'UsageDay' });
export type UsageDay = z.infer<typeof UsageDay>;

export const UsageData = z
  .object({
    from: z.string(),
    to: z.string(),
    totals: UsageCounts,
    /** Every day of the range, oldest first, zero days included. */
    days: z.array(UsageDay),
  })
  .meta({ id: 'Usage' });
export type UsageData = z.infer<typeof UsageData>;

/** The organisation's usage per day and key (JSON, or `format=csv`). */
export const USAGE_ENDPOINTS = {
  read: endpoint({ method: 'get', path: '/api/v1/usage', query: UsageQuery, data: UsageData }),
} as const;
