import { HashingBusyError } from '../accounts/hashing-limiter';
import { ContractError } from '../contract-error';
import { RATE_LIMIT_UNAVAILABLE_RETRY_SECONDS } from '../rate-limit/check-rate-limit';
import { RateLimitUnavailableError } from '../rate-limit/sliding-window';

/**
 * For `.catch` in the routes that hash a password behind a throttle (sign-in, sign-up, invitation and reset links):
 * the two refusals they share as their contract errors, rethrown; anything else rethrown as it is, for the route's
 * own rules. A shared throttle that cannot be reached refuses (503 rate_limit_unavailable), never lets through
 * uncounted; a full password-hashing line (a flood) refuses before anything was counted or written (503 server_busy).
 */
export function rethrowBusy(err: unknown): never {
  if (err instanceof RateLimitUnavailableError) {
    throw new ContractError('rate_limit_unavailable', { retryAfterSeconds: RATE_LIMIT_UNAVAILABLE_RETRY_SECONDS });
  }
  if (err instanceof HashingBusyError) {
    throw new ContractError('server_busy', { retryAfterSeconds: err.retryAfterSeconds });
  }
  throw err;
}
