import { z } from 'zod';
import { endpoint } from './endpoint';

export const BackendHealth = z
  .object({
    reachable: z.boolean().meta({ description: 'Answered a trivial command within a second' }),
    latency_ms: z.number().int().nullable().meta({ description: 'Round trip of that command; null when unreachable' }),
  })
  .meta({ id: 'BackendHealth' });
export type BackendHealth = z.infer<typeof BackendHealth>;

/** How fresh the disaster data is: none yet, refreshed within 48 hours, or older. */
export const DataStatus = z.enum(['available', 'unavailable', 'stale']);
export type DataStatus = z.infer<typeof DataStatus>;

export const Health = z
  .object({
    status: z.enum(['ok', 'unavailable', 'stale']).meta({
      description:
        'The process is up and answering (this endpoint is always 200 while it does). ok: checks are answered from ' +
        'data refreshed within 48 hours; unavailable: no refresh has succeeded yet, so checks answer 503; stale: ' +
        'checks are answered, but from data older than 48 hours',
    }),
    last_updated: z.string().nullable().meta({ description: 'Last successful data refresh, null before the first' }),
    data_status: DataStatus.meta({
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

export const Readiness = z
  .object({
    status: z.literal('ready').meta({ description: 'Checks are answered: a refresh has succeeded' }),
    last_updated: z.string().meta({ description: 'Last successful data refresh' }),
    data_status: DataStatus.exclude(['unavailable']).meta({
      description: 'stale: older than 48 hours, still answered (every instance shares the same data)',
    }),
  })
  .meta({ id: 'Readiness' });
export type Readiness = z.infer<typeof Readiness>;

/** How fresh the data is (no envelope), and whether this instance takes traffic. */
export const HEALTH_ENDPOINTS = {
  health: endpoint({ method: 'get', path: '/healthz', response: Health }),
  readiness: endpoint({ method: 'get', path: '/readyz', response: Readiness }),
} as const;
