import { ACTIVITY_ENDPOINTS } from '../../../../shared/api/activity';
import type { ConsoleCalls } from '../../console-calls';

/** The Activity page's call: the organisation's latest `limit` audit events. */
export const activityApi = ({ signedIn }: ConsoleCalls) => ({
  activity: (limit: number) => signedIn(ACTIVITY_ENDPOINTS.list, { query: { limit } }),
});
