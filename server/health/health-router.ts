import { Router } from 'express';
import { Health, type BackendHealth } from '../../shared/api/health';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { dataAgeSeconds, isStale } from '../declarations/freshness';
import { jsonResponse, NO_AUTH, type ApiRegistry } from '../http/openapi-registry';

/** A shared backend's reachability check: resolves true when it answered. */
export type BackendProbe = () => Promise<boolean>;
export type BackendName = 'postgresql' | 'redis';

/** A probe that has not answered after this long counts as unreachable: a health check must answer quickly. */
const PROBE_TIMEOUT_MS = 1_000;

async function probe(check: BackendProbe): Promise<BackendHealth> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const reachable = await Promise.race([
    check().catch(() => false),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  return { reachable, latency_ms: reachable ? Math.round(performance.now() - started) : null };
}

/**
 * GET /: whether the service runs, how fresh its data is, and whether this instance reaches each shared backend.
 * No key needed; never cached. Always 200 while the process answers: every instance shares the same backends, so a
 * load balancer taking instances out over a backend outage would take them all out; the body says what is wrong.
 */
export function healthRouter(
  declarations: DeclarationRepository,
  clock: () => Date,
  backends: Partial<Record<BackendName, BackendProbe>> = {},
): Router {
  const probes = Object.entries(backends) as [BackendName, BackendProbe][];
  return Router().get('/', async (_req, res) => {
    const now = clock();
    const lastUpdated = declarations.lastUpdated;
    const body: Health = {
      status: 'ok',
      last_updated: lastUpdated,
      data_status: lastUpdated === null ? 'unavailable' : isStale(lastUpdated, now) ? 'stale' : 'available',
      data_age_seconds: dataAgeSeconds(lastUpdated, now),
    };
    if (probes.length > 0) {
      const results = await Promise.all(probes.map(async ([name, check]) => [name, await probe(check)] as const));
      body.backends = Object.fromEntries(results);
    }
    res.setHeader('Cache-Control', 'no-store').json(body);
  });
}

/** The health check's operation in the OpenAPI document. */
export function registerHealthPaths(registry: ApiRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness and data freshness',
    security: NO_AUTH,
    responses: { 200: jsonResponse(Health, 'The service is up') },
  });
}
