import { z } from 'zod';

export const BackendHealth = z
  .object({
    reachable: z.boolean().meta({ description: 'Answered a trivial command within a second' }),
    latency_ms: z.number().int().nullable().meta({ description: 'Round trip of that command; null when unreachable' }),
  })
  .meta({ id: 'BackendHealth' });
export type BackendHealth = z.infer<typeof BackendHealth>;

export const Health = z
  .object({
    status: z.literal('ok').meta({ description: 'The process is up and answering' }),
    last_updated: z.string().nullable().meta({ description: 'Last successful data refresh, null before the first' }),
    data_status: z.enum(['available', 'unavailable', 'stale']).meta({
      description: 'unavailable: no refresh has succeeded yet (checks answer 503); stale: older than 48 hours',
    }),
    data_age_seconds: z.number().int().nullable(),
    backends: z
      .object({ postgresql: BackendHealth.optional(), redis: BackendHealth.optional() })
      .optional()
      .meta({
        description:
          'Each shared backend configured (DATABASE_URL, REDIS_URL) and whether this instance reaches it; absent ' +
          'when the service runs on its JSON files alone',
      }),
  })
  .meta({ id: 'Health' });
export type Health = z.infer<typeof Health>;
