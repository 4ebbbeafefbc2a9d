import { HEALTH_ENDPOINTS, type Health } from '../../../../shared/api/health';
import { endpointUrl, methodOf } from '../../../../ui/api/endpoint-call';
import { sendRequest } from '../../../../ui/api/server-request';
import { HERE, type ConsoleCalls } from '../../console-calls';

const { health } = HEALTH_ENDPOINTS;

/** The Overview's own call (its usage section has usage-api.ts). */
export const overviewApi = ({ fetch }: ConsoleCalls) => ({
  /** GET /healthz (no envelope): how fresh the disaster data is. Null when it could not be read. */
  async health(): Promise<Health | null> {
    const answer = await sendRequest(fetch, endpointUrl(HERE, health), { method: methodOf(health) });
    const parsed = health.response.safeParse(answer?.body);
    return parsed.success ? parsed.data : null;
  },
});
