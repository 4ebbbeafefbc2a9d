import type { ErrorRequestHandler, Request } from 'express';
import { SSO_ENDPOINTS, type SsoInterruption } from '../../shared/api/sso';
import { ContractError } from '../contract-error';
import type { Logger } from '../logger';
import { consoleErrorPath } from './sso-urls';

/**
 * The steps a browser navigates to in the middle of a sign-in: the start, the OpenID Connect callback, SAML's ACS (the
 * IdP's page posts it) and finish.
 */
export const SSO_BROWSER_STEPS: readonly string[] = [
  SSO_ENDPOINTS.start.path,
  SSO_ENDPOINTS.callback.path,
  SSO_ENDPOINTS.samlAcs.path,
  SSO_ENDPOINTS.samlFinish.path,
];

/** Whether the caller asked for JSON (an API client) rather than a page (a browser following a link). */
export function wantsJson(req: Request): boolean {
  return req.accepts(['html', 'json']) === 'json';
}

/**
 * What stopped a browser's sign-in step on this service's side: too many starts or callbacks (429), its storage,
 * Redis or session store out (5xx), or a fault of ours. Undefined for a refusal of the request itself (a form that is
 * not one, a missing parameter): those keep their envelope, as no person's browser sends them.
 */
function interruptionOf(err: unknown): SsoInterruption | undefined {
  if (!(err instanceof ContractError)) return 'sso_unavailable';
  if (err.status === 429) return 'sso_busy';
  if (err.status >= 500) return 'sso_unavailable';
  return undefined;
}

/**
 * Mounted after SSO_BROWSER_STEPS' routes, so it sees what their gates (the cookie session a browser may still hold)
 * and their handlers could not carry through: the browser goes to the console's sign-in page, which says so in words,
 * instead of leaving a person on a page of JSON. A client that asks for JSON gets the error handler's envelope. The
 * request log shows these as 303s, so each is logged here: a fault of ours as the error handler logs one, an outage
 * as a warning with its cause; a throttled step (anyone can cause one) at info.
 */
export function ssoBrowserErrors(logger: Pick<Logger, 'info' | 'warn' | 'error'>): ErrorRequestHandler {
  return (err, req, res, next) => {
    const interruption = interruptionOf(err);
    if (!interruption || res.headersSent || wantsJson(req)) return next(err);
    if (!(err instanceof ContractError)) {
      logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    } else {
      const cause = err.cause instanceof Error ? err.cause.message : undefined;
      const line = { code: err.code, path: req.path, interruption, cause };
      if (err.status === 429) logger.info(line, 'single sign-on interrupted');
      else logger.warn(line, 'single sign-on interrupted');
    }
    res.set('Cache-Control', 'no-store').redirect(303, consoleErrorPath(interruption));
  };
}
