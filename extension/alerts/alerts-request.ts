import { ALERT_ENDPOINTS, type Alert } from '../../shared/api/alerts';
import { ErrorEnvelope } from '../../shared/api/envelope';
import type { ApiErrorCode } from '../../shared/api/errors';
import { answerOf, endpointUrl, methodOf } from '../../ui/api/endpoint-call';
import { GATEWAY_STATUSES, isRedirect, sendRequest, type Fetch } from '../../ui/api/server-request';
import type { AlertsProblem } from '../common/setup-answers';

/**
 * Each problem as the popup ends "Could not check alerts: …": read at the front desk, so no status codes and no
 * server messages, and a dead key sends the reader to whoever holds the current one (a new key would stop every other
 * workstation, and the front desk has no account to make one).
 */
export const ALERTS_PROBLEM_WORDS: Record<AlertsProblem, string> = {
  not_configured: 'the extension is not set up yet: its Server URL and API key are entered in the options.',
  no_permission: 'the browser has not allowed access to the server: open the options and allow it.',
  unreachable: 'the server could not be reached.',
  redirected:
    'the server’s address sends the extension to another address, so nothing was sent. Ask the clinic’s IT provider to enter the server’s new address in the options.',
  invalid_key:
    'the server did not accept the API key saved in this browser. Ask the practice manager or IT for the current key.',
  subscription_inactive: 'the clinic’s subscription is inactive.',
  busy: 'the server is busy with this clinic’s checks. Alerts are checked again within the hour.',
  no_data: 'the server has no disaster data yet.',
  no_alerts: 'this server does not send alerts.',
  server_error: 'the server had a problem. Alerts are checked again within the hour.',
  unexpected: 'the server gave an unexpected answer.',
};

/** The API's refusals that have words of their own; any other is the server's problem. */
const PROBLEM_BY_CODE: Partial<Record<ApiErrorCode, AlertsProblem>> = {
  missing_api_key: 'invalid_key',
  invalid_api_key: 'invalid_key',
  subscription_inactive: 'subscription_inactive',
  rate_limited: 'busy',
  data_unavailable: 'no_data',
  // A server from before alerts: its catch-all answers the path.
  not_found: 'no_alerts',
};

export type AlertsAnswer = { ok: true; alerts: Alert[] } | { ok: false; problem: AlertsProblem };

/** GET /api/v1/alerts?since=<id> with the API key; every failure one of AlertsProblem. */
export async function requestAlerts(
  fetchFn: Fetch,
  serverUrl: string,
  apiKey: string,
  since: string | null,
): Promise<AlertsAnswer> {
  const { list } = ALERT_ENDPOINTS;
  const query = since === null ? undefined : { since };
  const answer = await sendRequest(fetchFn, endpointUrl(serverUrl, list, { query }), {
    method: methodOf(list),
    headers: { 'x-api-key': apiKey },
    credentials: 'omit',
  });
  if (!answer) return { ok: false, problem: 'unreachable' };
  const { response, body } = answer;
  if (isRedirect(response)) return { ok: false, problem: 'redirected' };
  if (response.ok) {
    const data = answerOf(list)(body);
    return data ? { ok: true, alerts: data.alerts } : { ok: false, problem: 'unexpected' };
  }
  const envelope = ErrorEnvelope.safeParse(body);
  if (envelope.success) return { ok: false, problem: PROBLEM_BY_CODE[envelope.data.error.code] ?? 'server_error' };
  if (GATEWAY_STATUSES.has(response.status)) return { ok: false, problem: 'unreachable' };
  if (response.status === 404) return { ok: false, problem: 'no_alerts' };
  return { ok: false, problem: 'server_error' };
}
