import type { RequestHandler } from 'express';
import type { Logger } from '../logger';

/** How long a request waits for the database to confirm its data is current before being answered from memory. */
const SYNC_WAIT_MS = 500;
/** While the database is out, the failure is logged once per this long, not once per request. */
const LOG_EVERY_MS = 30_000;

/**
 * Runs in front of every request that authenticates (API key or session) when several instances share PostgreSQL:
 * the request goes on once this process holds everything committed before it arrived (DataVersions.sync), so that a
 * key revoked, a key issued or a subscription ended on another instance counts on this one's very next request.
 *
 * When the database does not confirm within half a second (down, overloaded), the request is answered from what the
 * process holds, at most as old as the outage: during a disaster clinics must keep getting answers, and no state is
 * written on this path. The outage is logged.
 */
export function freshData(sync: () => Promise<void>, logger: Pick<Logger, 'warn'>): RequestHandler {
  let lastLogged = 0;
  const report = (err: unknown) => {
    if (Date.now() - lastLogged < LOG_EVERY_MS) return;
    lastLogged = Date.now();
    logger.warn({ err }, 'could not confirm data is current with the database: answering from memory');
  };
  return (_req, _res, next) => {
    let settled = false;
    const go = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      next();
    };
    const timer = setTimeout(() => {
      report(new Error(`no answer within ${SYNC_WAIT_MS} ms`));
      go();
    }, SYNC_WAIT_MS);
    sync().then(go, (err: unknown) => {
      report(err);
      go();
    });
  };
}
