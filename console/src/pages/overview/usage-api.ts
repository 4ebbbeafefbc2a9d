import { USAGE_ENDPOINTS } from '../../../../shared/api/usage';
import { callEndpoint, downloadCsv } from '../../../../ui/api/endpoint-call';
import type { Fetch } from '../../../../ui/api/server-request';
import { HERE } from '../../console-calls';

/** GET /api/v1/usage: the organisation's checks per day and key, as data for the chart or as the server's CSV. */
export const usageApi = {
  read: (f: Fetch, days: number) => callEndpoint(f, HERE, USAGE_ENDPOINTS.read, { query: { days } }),
  csv: (f: Fetch, days: number) => downloadCsv(f, HERE, USAGE_ENDPOINTS.read, { days, format: 'csv' }),
};
