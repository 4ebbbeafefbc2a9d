import type { Request, Response } from 'express';
import type { SsoInterruption } from '../../shared/api/sso';
import { ContractError } from '../contract-error';
import type { Logger } from '../logger';
import { consoleErrorPath } from './sso-urls';

/**
 * What stopped a browser's sign-in step on this service's side: too many starts or callbacks (429), its storage or
 * Redis out (503), or a fault of ours. Undefined for a refusal of the request itself (a form that is not one, a
 * missing parameter): those keep their envelope, as no person's browser sends them.
 */
function interruptionOf(err: unknown): SsoInterruption | undefined {
  if (!(err instanceof ContractError)) return 'sso_unavailable';
  if (err.status === 429) return 'sso_busy';
  if (err.status >= 500) return 'sso_unavailable';
  return undefined;
}

/**
 * Runs a step a browser navigates to in the middle of a sign-in (the start, the provider's callback, the SAML ACS and
 * finish). Should the service fail it, the browser goes to the console's sign-in page, which says so in words, rather
 * than leaving a person on a page of JSON. A fault of ours is logged as the error handler logs it.
 */
export async function asBrowserStep(
  req: Request,
  res: Response,
  logger: Pick<Logger, 'warn' | 'error'>,
  step: () => Promise<void>,
): Promise<void> {
  try {
    await step();
  } catch (err) {
    const interruption = interruptionOf(err);
    if (!interruption || res.headersSent) throw err;
    if (err instanceof ContractError) {
      logger.warn({ code: err.code, path: req.path }, 'single sign-on interrupted');
    } else {
      logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    }
    res.set('Cache-Control', 'no-store').redirect(303, consoleErrorPath(interruption));
  }
}
