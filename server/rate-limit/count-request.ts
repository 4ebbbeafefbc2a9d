import { ContractError } from '../contract-error';
import type { CountedCaller } from '../keys/require-api-key';
import { keyBucket, limitFor, secondsUntil } from './check-rate-limit';
import type { SlidingWindowCounter } from './sliding-window';

/** Where a request is counted and the most that bucket may count in a window. */
export interface Allowance {
  bucket: string;
  limit: number;
}

/**
 * Counts one request of a valid key where no HTTP request stands for it (an MCP tool call: one HTTP request may carry
 * several, or none), on the check's counter, in the key's bucket at its subscription's limit: one budget, exact across
 * instances, whatever the key calls. A refusal is not recorded (the counter's `consume`) and is thrown as the check's
 * 429, with the seconds until a slot frees; an unreachable shared counter rejects with the 503 it gives the check.
 * `allowance`: another bucket of the key's on the same counter, at its own limit (the MCP protocol's messages).
 */
export async function countRequest(
  counter: SlidingWindowCounter,
  caller: CountedCaller,
  now: number,
  allowance: Allowance = { bucket: keyBucket(caller), limit: limitFor(caller) },
): Promise<void> {
  const state = await counter.consume(allowance.bucket, allowance.limit, now);
  if (state.allowed) return;
  throw new ContractError('rate_limited', {
    retryAfterSeconds: Math.max(1, secondsUntil(new Date(state.resetAt), now)),
  });
}
