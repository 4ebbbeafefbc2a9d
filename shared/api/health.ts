import { z } from 'zod';

export const Health = z
  .object({
    status: z.literal('ok').meta({ description: 'The process is up and answering' }),
    last_updated: z.string().nullable().meta({ description: 'Last successful data refresh, null before the first' }),
    data_status: z.enum(['available', 'unavailable', 'stale']).meta({
      description: 'unavailable: no refresh has succeeded yet (checks answer 503); stale: older than 48 hours',
    }),
    data_age_seconds: z.number().int().nullable(),
  })
  .meta({ id: 'Health' });
export type Health = z.infer<typeof Health>;
