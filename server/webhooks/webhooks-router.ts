import { Router, type RequestHandler, type Response } from 'express';
import { WebhookRequest, type NewWebhookData, type WebhookData } from '../../shared/api/webhook';
import type { Account } from '../accounts/account-store';
import { isSubscriptionActive, type AccountService } from '../accounts/account-service';
import { sessionOrApiKey } from '../auth/session-or-api-key';
import { AppError } from '../http/app-error';
import { jsonBody } from '../http/json-body';
import { methodNotAllowed } from '../http/method-not-allowed';
import { withValidBody } from '../http/validate-request';
import type { KeyService } from '../keys/key-service';
import { requireSession, signedInAccount } from '../sessions/require-session';
import { WebhookError, type WebhookService } from './webhook-service';

export interface WebhooksRouterDeps {
  webhooks: WebhookService;
  accounts: AccountService;
  keys: KeyService;
  clock: () => Date;
  /**
   * For GET with `x-api-key`: runs after the key is identified and before any 401/403, as on the check, so a guessed
   * key costs the guesser its own budget.
   */
  rateLimit: readonly RequestHandler[];
}

/**
 * PUT, GET and DELETE `/api/v1/webhook` (mounted behind the cookie session): the subscription's one webhook. PUT
 * returns the signing secret, this once; GET shows the URL and the last delivery, never the secret.
 */
export function webhooksRouter(deps: WebhooksRouterDeps): Router {
  const { webhooks, accounts, clock } = deps;
  const subscriptionOf = (account: Account) => {
    const subscription = accounts.subscriptionOf(account.id);
    // Every account has one (created with it); without one the caller has nothing to manage.
    if (!subscription) throw new AppError('subscription_inactive');
    return subscription;
  };

  const put = withValidBody(
    WebhookRequest.strict(),
    () => 'invalid_request',
    async ({ url }, _req, res: Response) => {
      const subscription = subscriptionOf(signedInAccount(res));
      if (!isSubscriptionActive(subscription, clock())) throw new AppError('subscription_inactive');
      const data: NewWebhookData = await webhooks.set(subscription.id, url).catch((err: unknown) => {
        if (err instanceof WebhookError) throw new AppError('invalid_webhook_url');
        throw err;
      });
      res.json({ success: true, data });
    },
  );

  const get: RequestHandler = (_req, res) => {
    const subscription = subscriptionOf(signedInAccount(res));
    const data: WebhookData = webhooks.get(subscription.id) ?? { url: null, created_at: null, last_delivery: null };
    res.json({ success: true, data });
  };

  const remove: RequestHandler = async (_req, res) => {
    const subscription = subscriptionOf(signedInAccount(res));
    if (!(await webhooks.remove(subscription.id))) throw new AppError('no_webhook');
    res.json({ success: true, data: { url: null, created_at: null, last_delivery: null } satisfies WebhookData });
  };

  const router = Router();
  router.get('/', sessionOrApiKey(deps), get);
  router.put('/', requireSession(accounts), jsonBody, put);
  router.delete('/', requireSession(accounts), remove);
  router.all('/', methodNotAllowed('GET, HEAD, PUT, DELETE'));
  return router;
}
