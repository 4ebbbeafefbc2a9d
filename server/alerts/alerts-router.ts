import { Router, type RequestHandler } from 'express';
import { AlertsQuery, type AlertsData } from '../../shared/api/alerts';
import type { AccountService } from '../accounts/account-service';
import { sessionOrApiKey, type SessionOrApiKeyDeps } from '../auth/session-or-api-key';
import { AppError } from '../http/app-error';
import { methodNotAllowed } from '../http/method-not-allowed';
import { signedInAccount } from '../sessions/require-session';
import type { AlertsService } from './alerts-service';

export interface AlertsRouterDeps extends SessionOrApiKeyDeps {
  alerts: AlertsService;
  accounts: AccountService;
}

/**
 * GET /api/v1/alerts[?since=<alert id>] (mounted behind the cookie session): the caller's subscription's alerts after
 * `since`, oldest first. The session or an `x-api-key` header (the extension's worker polls with the key).
 */
export function alertsRouter(deps: AlertsRouterDeps): Router {
  const { alerts, accounts } = deps;
  const list: RequestHandler = (req, res) => {
    const query = AlertsQuery.safeParse(req.query);
    if (!query.success) throw new AppError('invalid_request');
    const subscriptionId = accounts.subscriptionOf(signedInAccount(res).id)?.id;
    const data: AlertsData = { alerts: subscriptionId ? alerts.list(subscriptionId, query.data.since) : [] };
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, data });
  };

  const router = Router();
  router.get('/', sessionOrApiKey(deps), list);
  router.all('/', methodNotAllowed('GET, HEAD'));
  return router;
}
