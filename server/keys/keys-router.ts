import { Router, type Request, type RequestHandler, type Response } from 'express';
import { successEnvelope } from '../../shared/api/envelope';
import type { ApiErrorCode } from '../../shared/api/errors';
import {
  DEFAULT_RATE_LIMIT,
  KeyStatusData,
  NewKeyData,
  PLAN_NAME,
  RATE_LIMIT_WINDOW_SECONDS,
  RevokedKeyData,
} from '../../shared/api/keys';
import { isSubscriptionActive, type AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { methodNotAllowed } from '../http/method-not-allowed';
import { errorResponse, jsonResponse, SESSION_AUTH, type ApiRegistry } from '../http/openapi-registry';
import { MANAGING_ROLES } from '../../shared/api/team';
import { callerSubscription, requireRole, requireSession, signedInAccount } from '../sessions/require-session';
import { KeyError, type KeyActionOptions, type KeyErrorCode, type KeyService } from './key-service';

export interface KeysRouterDeps {
  keys: KeyService;
  accounts: AccountService;
  clock: () => Date;
}

const KEY_ERRORS: Record<KeyErrorCode, ApiErrorCode> = {
  key_exists: 'key_exists',
  no_active_key: 'no_active_key',
  subscription_inactive: 'subscription_inactive',
  // The session's account is gone: the caller is nobody.
  account_not_found: 'unauthenticated',
  rate_limited: 'rate_limited',
};

/** For `.catch`: the service's refusals become their contract errors; anything else stays as it is. */
function rethrowKeyError(err: unknown): never {
  if (!(err instanceof KeyError)) throw err;
  throw new ContractError(KEY_ERRORS[err.code], { retryAfterSeconds: err.retryAfterSeconds });
}

/**
 * A key action from the web: it counts against the account's limit of 10 an hour (key-action-limit.ts), and the audit
 * trail records it as the signed-in person's, from the client's address.
 */
const webAction = (req: Request): KeyActionOptions => ({
  limited: true,
  by: { source: 'web', ip: clientAddress(req) },
});

/**
 * Key management behind the cookie session: POST /generate, /regenerate, /revoke and GET /status. The rules (one
 * active key, rotation and revocation in one locked write, the audit events) live in KeyService, shared with the CLI;
 * this maps them to HTTP. The raw key leaves the server once, in the 201 body, which nothing may cache.
 */
export function keysRouter(deps: KeysRouterDeps): Router {
  const { keys, accounts, clock } = deps;

  const issue =
    (mode: 'generate' | 'regenerate'): RequestHandler =>
    async (req, res) => {
      const { id } = signedInAccount(res);
      const options = webAction(req);
      const created = await (
        mode === 'generate' ? keys.generate(id, clock(), options) : keys.regenerate(id, clock(), options)
      ).catch(rethrowKeyError);
      const data: NewKeyData = {
        api_key: created.api_key,
        key_prefix: created.key_prefix,
        created_at: created.created_at,
      };
      res.status(201).json({ success: true, data });
    };

  const revoke: RequestHandler = async (req, res) => {
    const revoked = await keys.revoke(signedInAccount(res).id, clock(), webAction(req)).catch(rethrowKeyError);
    res.json({ success: true, data: { revoked_at: revoked.revoked_at } satisfies RevokedKeyData });
  };

  const status: RequestHandler = (_req, res: Response) => {
    const subscription = callerSubscription(res);
    const key = subscription && keys.currentKey(subscription.id);
    const data: KeyStatusData = {
      subscription: {
        plan: PLAN_NAME,
        status: isSubscriptionActive(subscription, clock()) ? 'active' : 'inactive',
        expires_at: subscription?.expires_at ?? null,
      },
      key: {
        status: key?.status ?? 'none',
        key_prefix: key?.prefix ?? null,
        created_at: key?.created_at ?? null,
        last_used_at: key?.last_used_at ?? null,
      },
      rate_limit: { limit: subscription?.rate_limit ?? DEFAULT_RATE_LIMIT, window_seconds: RATE_LIMIT_WINDOW_SECONDS },
    };
    res.json({ success: true, data });
  };

  const router = Router();
  router.use(requireSession(accounts));
  const managing = requireRole(...MANAGING_ROLES);
  router.post('/generate', managing, issue('generate'));
  router.post('/regenerate', managing, issue('regenerate'));
  router.post('/revoke', managing, revoke);
  router.get('/status', status);
  for (const path of ['/generate', '/regenerate', '/revoke']) router.all(path, methodNotAllowed('POST'));
  router.all('/status', methodNotAllowed('GET, HEAD'));
  return router;
}

const KEY_ACTIONS_LIMITED =
  'Rate limit exceeded: 10 key actions (generate, regenerate, revoke) per account per hour; wait Retry-After seconds';

/** Key management's operations in the OpenAPI document: all behind the cookie session. */
export function registerKeysPaths(registry: ApiRegistry): void {
  const keyPath = (path: string, summary: string, responses: Parameters<ApiRegistry['registerPath']>[0]['responses']) =>
    registry.registerPath({
      method: path.endsWith('status') ? 'get' : 'post',
      path,
      summary,
      security: SESSION_AUTH,
      responses,
    });
  keyPath('/api/v1/keys/generate', 'Create the API key (shown once)', {
    201: jsonResponse(successEnvelope(NewKeyData), 'The new key'),
    401: errorResponse('Sign in required'),
    403: errorResponse('API subscription is inactive, or request origin not allowed'),
    409: errorResponse('An active API key already exists'),
    429: errorResponse(KEY_ACTIONS_LIMITED),
  });
  keyPath('/api/v1/keys/regenerate', 'Replace the active key (the old one stops working at once)', {
    201: jsonResponse(successEnvelope(NewKeyData), 'The new key'),
    401: errorResponse('Sign in required'),
    403: errorResponse('API subscription is inactive, or request origin not allowed'),
    404: errorResponse('No active API key'),
    429: errorResponse(KEY_ACTIONS_LIMITED),
  });
  keyPath('/api/v1/keys/revoke', 'Revoke the active key for good', {
    200: jsonResponse(successEnvelope(RevokedKeyData), 'Revoked'),
    401: errorResponse('Sign in required'),
    403: errorResponse('Request origin not allowed'),
    404: errorResponse('No active API key'),
    429: errorResponse(KEY_ACTIONS_LIMITED),
  });
  keyPath('/api/v1/keys/status', 'Subscription, key and rate-limit status', {
    200: jsonResponse(successEnvelope(KeyStatusData), 'Status'),
    401: errorResponse('Sign in required'),
  });
}
