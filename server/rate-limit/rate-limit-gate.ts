import type { RequestHandler } from 'express';
import { checkRateLimit } from './check-rate-limit';
import type { SlidingWindowCounter } from './sliding-window';

/**
 * The check's rate limiter, counting on `counter` by the process's one clock. One instance serves the check and every
 * API-key read, so a key has one budget whatever it calls.
 */
export function rateLimitGate(counter: SlidingWindowCounter, clock: () => Date): RequestHandler[] {
  return checkRateLimit(counter, () => clock().getTime());
}
