import { z } from 'zod';
import { HEALTH_ENDPOINTS, Health } from '../../shared/api/health';
import { endpointUrl, methodOf } from '../../ui/api/endpoint-call';
import { GATEWAY_STATUSES, isRedirect, sendRequest, type Fetch } from '../../ui/api/server-request';
import type { ServerProbe } from '../common/setup-answers';

/**
 * What /healthz answers on every version of the service: enough to tell it from any other web server, and lenient
 * about the rest (`status` says more than "ok" on newer servers, and older ones send fewer fields).
 */
const HealthAnswer = z.object({ status: z.string(), last_updated: Health.shape.last_updated });

const { health } = HEALTH_ENDPOINTS;

/** GET <serverUrl>/healthz: needs no key and costs the clinic nothing against its checks. */
export async function probeServer(fetchFn: Fetch, serverUrl: string): Promise<ServerProbe> {
  const answer = await sendRequest(fetchFn, endpointUrl(serverUrl, health), {
    method: methodOf(health),
    credentials: 'omit',
  });
  if (!answer) return 'unreachable';
  const { response, body } = answer;
  if (isRedirect(response)) return 'redirected';
  if (response.ok) return HealthAnswer.safeParse(body).success ? 'ok' : 'not_this_service';
  // A proxy in front of a stopped server.
  return GATEWAY_STATUSES.has(response.status) ? 'unreachable' : 'not_this_service';
}
