import { UsageData } from '../../../../shared/api/usage';
import { accountCall, sessionCall } from '../../../../ui/api/account-api';
import type { Fetch } from '../../../../ui/api/server-request';

/** Same origin: the paths alone, with the console's cookie session. */
const HERE = '';

/** GET /api/v1/usage: the organisation's checks per day and key, as data for the chart or as the server's CSV. */
export const usageApi = {
  read: (f: Fetch, days: number) => accountCall(f, HERE, `/usage?days=${days}`, 'GET', UsageData),
  csv: (f: Fetch, days: number) =>
    sessionCall(
      f,
      HERE,
      `/usage?days=${days}&format=csv`,
      'GET',
      (body) => (typeof body === 'string' ? body : null),
      undefined,
      'text',
    ),
};
