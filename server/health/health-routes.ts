import {
  HEALTH_ENDPOINTS,
  type BackendHealth,
  type DataStatus,
  type Health,
  type Readiness,
} from '../../shared/api/health';
import { lastRefreshOrUnavailable } from '../check/data-metadata';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { dataAgeSeconds, isStale } from '../declarations/freshness';
import { errorResponse, NO_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';

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

export interface HealthRoutesDeps {
  declarations: DeclarationRepository;
  clock: () => Date;
  backends?: Partial<Record<BackendName, BackendProbe>>;
}

/** GET /healthz (liveness and data freshness) and GET /readyz (readiness), for probes: no key, never cached. */
export function healthRoutes(deps: HealthRoutesDeps): Route[] {
  return [healthRoute(deps), readinessRoute(deps)];
}

/**
 * Whether the service runs, how fresh its data is, and whether this instance reaches each shared backend. Always 200
 * while the process answers: every instance shares the same backends, so a load balancer taking instances out over a
 * backend outage would take them all out; the body says what is wrong.
 */
function healthRoute({ declarations, clock, backends = {} }: HealthRoutesDeps): Route {
  const probes = Object.entries(backends) as [BackendName, BackendProbe][];
  return defineRoute({
    endpoint: HEALTH_ENDPOINTS.health,
    summary: 'Liveness and data freshness',
    description:
      'For a liveness probe: 200 while the process answers, whatever the data. `status` says whether checks are ' +
      'answered (ok), not yet (unavailable) or from data older than 48 hours (stale).',
    security: NO_AUTH,
    ok: 'The service is up',
    handle: async (_input, _req, res) => {
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
    },
  });
}

/**
 * Whether this instance answers checks, for a load balancer's or Kubernetes' readiness probe: 503 `data_unavailable`
 * (the check's own answer, with Retry-After) until the first refresh has succeeded, 200 after. Stale data still
 * answers 200: every instance shares the same data, so failing on it would take them all out of rotation while each
 * could still answer (flagged stale). Backend outages likewise stay on /healthz.
 */
function readinessRoute({ declarations, clock }: HealthRoutesDeps): Route {
  return defineRoute({
    endpoint: HEALTH_ENDPOINTS.readiness,
    summary: 'Readiness: whether checks are answered',
    description:
      'For a readiness probe: 503 until the first data refresh has succeeded, 200 after. Stale data still answers ' +
      '200 (every instance shares it).',
    security: NO_AUTH,
    ok: 'Checks are answered',
    responses: {
      503: errorResponse('Disaster data is not available yet (data_unavailable); ask again after Retry-After seconds'),
    },
    handle: (_input, _req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      const now = clock();
      const lastUpdated = lastRefreshOrUnavailable(declarations, now);
      const body: Readiness = {
        status: 'ready',
        last_updated: lastUpdated,
        data_status: isStale(lastUpdated, now) ? 'stale' : 'available',
      };
      res.json(body);
    },
  });
}
