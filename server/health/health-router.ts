import { Router } from 'express';
import type { Health } from '../../shared/api/health';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { dataAgeSeconds, isStale } from '../declarations/freshness';

/** GET /: whether the service runs, and how fresh its data is. No key needed; never cached. */
export function healthRouter(declarations: DeclarationRepository, clock: () => Date): Router {
  return Router().get('/', (_req, res) => {
    const now = clock();
    const lastUpdated = declarations.lastUpdated;
    const body: Health = {
      status: 'ok',
      last_updated: lastUpdated,
      data_status: lastUpdated === null ? 'unavailable' : isStale(lastUpdated, now) ? 'stale' : 'available',
      data_age_seconds: dataAgeSeconds(lastUpdated, now),
    };
    res.setHeader('Cache-Control', 'no-store').json(body);
  });
}
