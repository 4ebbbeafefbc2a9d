import type { RequestHandler } from 'express';
import type { Logger } from '../logger';

/** How long a request waits for the database to confirm its data is current before being answered from memory. */
export const SYNC_WAIT_MS = 500;
/** While the database is out, the failure is logged once per this long, not once per request. */
const LOG_EVERY_MS = 30_000;

/**
 * How a request waits for a sync with the database (DataVersions.sync): resolves true once `synced` has resolved,
 * false when it failed or took longer than `waitMs`. The request then goes on from what the process holds, at most as
 * old as the outage: during a disaster clinics must keep getting answers, and nothing is written on that path. The
 * outage is logged, once per 30 s whatever the number of requests waiting.
 */
export function syncWithin(
  logger: Pick<Logger, 'warn'>,
  waitMs = SYNC_WAIT_MS,
): (synced: Promise<void>) => Promise<boolean> {
  let lastLogged = 0;
  const report = (err: unknown) => {
    if (Date.now() - lastLogged < LOG_EVERY_MS) return;
    lastLogged = Date.now();
    logger.warn({ err }, 'could not confirm data is current with the database: answering from memory');
  };
  return (synced) =>
    new Promise<boolean>((resolve) => {
      let settled = false;
      const settle = (current: boolean, err?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!current) report(err);
        resolve(current);
      };
      const timer = setTimeout(() => settle(false, new Error(`no answer within ${waitMs} ms`)), waitMs);
      synced.then(
        () => settle(true),
        (err: unknown) => settle(false, err),
      );
    });
}

/**
 * Runs in front of every request that authenticates (API key or session) when several instances share PostgreSQL:
 * the request goes on once this process holds everything committed before it arrived (DataVersions.sync), so that a
 * key revoked, a key issued or a subscription ended on another instance counts on this one's very next request. When
 * the database does not confirm within half a second (down, overloaded), the request is answered from memory
 * (`syncWithin`).
 *
 * With Redis too, the check does not come here: its rate-limit script tells whether anything was committed since this
 * process last caught up (the data epoch, storage/postgres/data-epoch.ts), which saves this query on almost every
 * check.
 */
export function freshData(sync: () => Promise<void>, logger: Pick<Logger, 'warn'>): RequestHandler {
  const wait = syncWithin(logger);
  return (_req, _res, next) => {
    void wait(sync()).then(() => next());
  };
}
