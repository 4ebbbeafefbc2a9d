import { ALERT_ENDPOINTS, type AlertsData } from '../../shared/api/alerts';
import { sessionOrApiKey, type SessionOrApiKeyDeps } from '../auth/session-or-api-key';
import { API_KEY_REFUSALS, errorResponse, SESSION_OR_API_KEY_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { callerSubscription } from '../sessions/require-session';
import type { AlertsService } from './alerts-service';

export interface AlertsRoutesDeps extends SessionOrApiKeyDeps {
  alerts: AlertsService;
}

/**
 * GET /api/v1/alerts[?since=<alert id>] (behind the cookie session): the caller's subscription's alerts after `since`,
 * oldest first. The session or an `x-api-key` header (the extension's worker polls with the key).
 */
export function alertsRoutes(deps: AlertsRoutesDeps): Route[] {
  const { alerts } = deps;
  return [
    defineRoute({
      endpoint: ALERT_ENDPOINTS.list,
      summary: "The subscription's catchment alerts, oldest first",
      description:
        'After each successful refresh, every catchment postcode is compared with its state at the previous refresh: newly_eligible (one per postcode, the lowest new AGRN), declaration_added, declaration_ended, no_longer_eligible. Kept 90 days. Pass the last id seen as `since`.',
      security: SESSION_OR_API_KEY_AUTH,
      // A gate rather than `authenticate`: a wrong method is answered 405 before any credentials are looked at.
      gates: [sessionOrApiKey(deps)],
      ok: 'Alerts with an id greater than since',
      responses: { 400: errorResponse('invalid_request: since is not an alert id'), ...API_KEY_REFUSALS },
      handle: async ({ query }, _req, res) => {
        const subscriptionId = callerSubscription(res)?.id;
        const data: AlertsData = { alerts: subscriptionId ? await alerts.list(subscriptionId, query.since) : [] };
        res.setHeader('Cache-Control', 'no-store');
        res.json({ success: true, data });
      },
    }),
  ];
}
