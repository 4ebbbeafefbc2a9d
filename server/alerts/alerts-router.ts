import { Router } from 'express';
import { AlertsData, AlertsQuery } from '../../shared/api/alerts';
import { successEnvelope } from '../../shared/api/envelope';
import { sessionOrApiKey, type SessionOrApiKeyDeps } from '../auth/session-or-api-key';
import { methodNotAllowed } from '../http/method-not-allowed';
import {
  API_KEY_REFUSALS,
  errorResponse,
  jsonResponse,
  SESSION_OR_API_KEY_AUTH,
  type ApiRegistry,
} from '../http/openapi-registry';
import { withValidQuery } from '../http/validate-request';
import { callerSubscription } from '../sessions/require-session';
import type { AlertsService } from './alerts-service';

export interface AlertsRouterDeps extends SessionOrApiKeyDeps {
  alerts: AlertsService;
}

/**
 * GET /api/v1/alerts[?since=<alert id>] (mounted behind the cookie session): the caller's subscription's alerts after
 * `since`, oldest first. The session or an `x-api-key` header (the extension's worker polls with the key).
 */
export function alertsRouter(deps: AlertsRouterDeps): Router {
  const { alerts } = deps;
  const list = withValidQuery(
    AlertsQuery,
    () => 'invalid_request',
    async ({ since }, _req, res) => {
      const subscriptionId = callerSubscription(res)?.id;
      const data: AlertsData = { alerts: subscriptionId ? await alerts.list(subscriptionId, since) : [] };
      res.setHeader('Cache-Control', 'no-store');
      res.json({ success: true, data });
    },
  );

  const router = Router();
  router.get('/', sessionOrApiKey(deps), list);
  router.all('/', methodNotAllowed('GET, HEAD'));
  return router;
}

/** The alerts' operation in the OpenAPI document (issue #17). */
export function registerAlertsPaths(registry: ApiRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/api/v1/alerts',
    summary: "The subscription's catchment alerts, oldest first",
    description:
      'After each successful refresh, every catchment postcode is compared with its state at the previous refresh: newly_eligible (one per postcode, the lowest new AGRN), declaration_added, declaration_ended, no_longer_eligible. Kept 90 days. Pass the last id seen as `since`.',
    security: SESSION_OR_API_KEY_AUTH,
    request: { query: AlertsQuery },
    responses: {
      200: jsonResponse(successEnvelope(AlertsData), 'Alerts with an id greater than since'),
      400: errorResponse('invalid_request: since is not an alert id'),
      ...API_KEY_REFUSALS,
    },
  });
}
