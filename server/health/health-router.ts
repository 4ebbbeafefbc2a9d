import { Router } from 'express';
import { Health, Readiness, type BackendHealth, type DataStatus } from '../../shared/api/health';
import { lastRefreshOrUnavailable } from '../check/data-metadata';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { dataAgeSeconds, isStale } from '../declarations/freshness';
import { errorResponse, jsonResponse, NO_AUTH, type ApiRegistry } from '../http/openapi-registry';

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

function dataStatus(lastUpdated: string | null, now: Date): DataStatus {
  if (lastUpdated === null) return 'unavailable';
  return isStale(lastUpdated, now) ? 'stale' : 'available';
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
    const data = dataStatus(lastUpdated, now);
    const body: Health = {
      status: data === 'available' ? 'ok' : data,
      last_updated: lastUpdated,
      data_status: data,
      data_age_seconds: dataAgeSeconds(lastUpdated, now),
    };
    if (probes.length > 0) {
      const results = await Promise.all(probes.map(async ([name, check]) => [name, await probe(check)] as const));
      body.backends = Object.fromEntries(results);
    }
    res.setHeader('Cache-Control', 'no-store').json(body);
  });
}

/**
 * GET /: whether this instance answers checks, for a load balancer's or Kubernetes' readiness probe: 503
 * `data_unavailable` (the check's own answer, with Retry-After) until the first refresh has succeeded, 200 after.
 * Stale data still answers 200: every instance shares the same data, so failing on it would take them all out of
 * rotation while each could still answer (flagged stale). Backend outages likewise stay on /healthz.
 */
export function readinessRouter(declarations: DeclarationRepository, clock: () => Date): Router {
  return Router().get('/', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const now = clock();
    const lastUpdated = lastRefreshOrUnavailable(declarations, now);
    const body: Readiness = {
      status: 'ready',
      last_updated: lastUpdated,
      data_status: isStale(lastUpdated, now) ? 'stale' : 'available',
    };
    res.json(body);
  });
}

/** The liveness and readiness checks' operations in the OpenAPI document. */
export function registerHealthPaths(registry: ApiRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness and data freshness',
    description:
      'For a liveness probe: 200 while the process answers, whatever the data. `status` says whether checks are ' +
      'answered (ok), not yet (unavailable) or from data older than 48 hours (stale).',
    security: NO_AUTH,
    responses: { 200: jsonResponse(Health, 'The service is up') },
  });
  registry.registerPath({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: whether checks are answered',
    description:
      'For a readiness probe: 503 until the first data refresh has succeeded, 200 after. Stale data still answers ' +
      '200 (every instance shares it).',
    security: NO_AUTH,
    responses: {
      200: jsonResponse(Readiness, 'Checks are answered'),
      503: errorResponse('Disaster data is not available yet (data_unavailable); ask again after Retry-After seconds'),
    },
  });
}
