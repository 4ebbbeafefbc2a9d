import type { Request } from 'express';
import type { LoginThrottle } from '../auth/login-throttle';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';

/**
 * Every single-use link (invitation, password reset, e-mail verification) is used through this: counted from the
 * client's address as sign-in counts failures, so guessing tokens is throttled like guessing passwords. A link refused
 * (`isRefusal`: unknown, used, expired …) counts against the address, anything else is given back; over the limit, 429
 * with Retry-After before the link is even looked at.
 */
export function linkUse(
  throttle: LoginThrottle,
  isRefusal: (err: unknown) => boolean,
): <T>(req: Request, use: () => Promise<T>) => Promise<T> {
  return async (req, use) => {
    const address = clientAddress(req);
    const gate = await throttle.begin(address, address);
    if (!gate.ok) throw new ContractError('rate_limited', { retryAfterSeconds: gate.retryAfterSeconds });
    try {
      const result = await use();
      await gate.attempt.succeeded();
      return result;
    } catch (err) {
      if (isRefusal(err)) gate.attempt.failed();
      else await gate.attempt.succeeded().catch(() => undefined);
      throw err;
    }
  };
}
