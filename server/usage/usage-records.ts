import { z } from 'zod';

/** One key's checks on one day (Sydney), as stored. */
const Row = z.object({
  subscription_id: z.string().min(1),
  key_id: z.string().min(1),
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  answered: z.number().int().nonnegative(),
  refused: z.number().int().nonnegative(),
  rate_limited: z.number().int().nonnegative(),
  // Absent from the files written before lists were counted (issue #37).
  batch_rows: z.number().int().nonnegative().default(0),
});

export const UsageFile = z.object({ rows: z.array(Row) });
export type UsageFile = z.infer<typeof UsageFile>;
