import type { RequestHandler } from 'express';
import { checkRateLimit } from './check-rate-limit';
import type { SlidingWindowCounter } from './sliding-window';

/** What the limiter reads of the server's runtime (named here rather than imported: runtime.ts depends on rate-limit/). */
export interface RateLimitRuntime {
  rateLimitCounter: SlidingWindowCounter;
  clock: () => Date;
}

/**
 * The check's rate limiter, counting on the runtime's counter by the process's one clock. One instance serves the
 * check and every API-key read, so a key has one budget whatever it calls.
 */
export function rateLimitGate(runtime: RateLimitRuntime): RequestHandler[] {
  return checkRateLimit(runtime.rateLimitCounter, () => runtime.clock().getTime());
}
