import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { ApiErrorCode } from '../../shared/api/errors';
import { DEFAULT_RATE_LIMIT, PLAN_NAME, RATE_LIMIT_WINDOW_SECONDS, type KeyStatusData, type NewKeyData, type RevokedKeyData } from '../../shared/api/keys';
import { isSubscriptionActive, type AccountService } from '../accounts/account-service';
import type { Account } from '../accounts/account-store';
import { recordOrLog, type AuditInput, type AuditLog } from '../audit/audit-log';
import { clientAddress } from '../http/client-address';
import { requireSession } from '../auth/require-session';
import { AppError } from '../http/app-error';
import { methodNotAllowed } from '../http/method-not-allowed';
import type { Logger } from '../logger';
import { KeyError, type KeyErrorCode, type KeyService } from './key-service';

export interface KeysRouterDeps {
  keys: KeyService;
  accounts: AccountService;
  audit: AuditLog;
  clock: () => Date;
  logger: Logger;
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
  const headers: Record<string, string> = err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) };
  throw new AppError(KEY_ERRORS[err.code], undefined, headers);
}

/** Key actions from the web count against the account's limit of 10 an hour (key-action-limit.ts). */
const LIMITED = { limited: true } as const;

/**
 * The key management endpoints of SPEC "Key and subscription states" and Part B §10, behind the cookie session.
 * The rules (one active key, rotation and revocation in one locked write) live in KeyService, shared with the CLI;
 * this maps them to HTTP. The raw key leaves the server once, in the 201 body, which nothing may cache.
 */
export function keysRouter(deps: KeysRouterDeps): Router {
  const { keys, accounts, audit, clock, logger } = deps;

  const audited = recordOrLog(audit, logger);
  const record = (req: Request, account: Account, event: AuditInput['event'], keyPrefix?: string) =>
    audited({ event, source: 'web', account_id: account.id, email: account.email, ip: clientAddress(req), ...(keyPrefix && { key_prefix: keyPrefix }) });

  const issue =
    (mode: 'generate' | 'regenerate'): RequestHandler =>
    async (req, res) => {
      const account = res.locals.account as Account;
      const created = await (mode === 'generate' ? keys.generate(account.id, clock(), LIMITED) : keys.regenerate(account.id, clock(), LIMITED)).catch(
        rethrowKeyError,
      );
      await record(req, account, mode === 'generate' ? 'key_generated' : 'key_regenerated', created.key_prefix);
      const data: NewKeyData = { api_key: created.api_key, key_prefix: created.key_prefix, created_at: created.created_at };
      res.status(201).json({ success: true, data });
    };

  const revoke: RequestHandler = async (req, res) => {
    const account = res.locals.account as Account;
    const revoked = await keys.revoke(account.id, clock(), LIMITED).catch(rethrowKeyError);
    await record(req, account, 'key_revoked', revoked.key_prefix);
    res.json({ success: true, data: { revoked_at: revoked.revoked_at } satisfies RevokedKeyData });
  };

  const status: RequestHandler = (_req, res: Response) => {
    const account = res.locals.account as Account;
    const subscription = accounts.subscriptionOf(account.id);
    const key = keys.currentKey(account.id);
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
  router.use('/keys', requireSession(accounts));
  router.post('/keys/generate', issue('generate'));
  router.post('/keys/regenerate', issue('regenerate'));
  router.post('/keys/revoke', revoke);
  router.get('/keys/status', status);
  for (const path of ['/keys/generate', '/keys/regenerate', '/keys/revoke']) router.all(path, methodNotAllowed('POST'));
  router.all('/keys/status', methodNotAllowed('GET, HEAD'));
  return router;
}
