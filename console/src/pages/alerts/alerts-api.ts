import { ALERT_ENDPOINTS } from '../../../../shared/api/alerts';
import type { ConsoleCalls } from '../../console-calls';

/** The Alerts page's call: the alerts the organisation's catchment has had. */
export const alertsApi = ({ signedIn }: ConsoleCalls) => ({
  alerts: () => signedIn(ALERT_ENDPOINTS.list),
});
