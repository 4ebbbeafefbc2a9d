import type { Request, RequestHandler, Response } from 'express';
import {
  DEFAULT_RATE_LIMIT,
  KEY_ENDPOINTS,
  PLAN_NAME,
  RATE_LIMIT_WINDOW_SECONDS,
  type KeyStatusData,
  type NewKeyData,
  type RevokedKeyData,
} from '../../shared/api/keys';
import { MANAGING_ROLES } from '../../shared/api/team';
import { isSubscriptionActive, type AccountService } from '../accounts/account-service';
import { clientAddress } from '../http/client-address';
import { errorResponse, SESSION_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { callerSubscription, requireRole, requireSession, signedInAccount } from '../sessions/require-session';
import type { KeyActionOptions, KeyService } from './key-service';

export interface KeyRoutesDeps {
  keys: KeyService;
  accounts: AccountService;
  clock: () => Date;
}

interface KeyContext extends KeyRoutesDeps {
  authenticate: RequestHandler;
  managing: RequestHandler;
}

/**
 * A key action from the web: it counts against the account's limit of 10 an hour (key-action-limit.ts), and the audit
 * trail records it as the signed-in person's, from the client's address.
 */
const webAction = (req: Request): KeyActionOptions => ({
  limited: true,
  by: { source: 'web', ip: clientAddress(req) },
});

const KEY_ACTIONS_LIMITED = {
  429: errorResponse(
    'Rate limit exceeded: 10 key actions (generate, regenerate, revoke) per account per hour; wait Retry-After seconds',
  ),
};
const INACTIVE_OR_ORIGIN = { 403: errorResponse('API subscription is inactive, or request origin not allowed') };
const NO_ACTIVE_KEY = { 404: errorResponse('No active API key') };

/**
 * /api/v1/keys (behind the cookie session): generate, regenerate and revoke for owners and admins, the status for any
 * member. The rules (one active key, rotation and revocation in one locked write, the audit events) live in KeyService,
 * shared with the CLI, which throws the contract's errors. The raw key leaves the server once, in the 201 body, which
 * nothing may cache.
 */
export function keyRoutes(deps: KeyRoutesDeps): Route[] {
  const context = { ...deps, authenticate: requireSession(deps.accounts), managing: requireRole(...MANAGING_ROLES) };
  return [
    issueRoute(context, 'generate'),
    issueRoute(context, 'regenerate'),
    revokeRoute(context),
    statusRoute(context),
  ];
}

function issueRoute({ keys, clock, authenticate, managing }: KeyContext, mode: 'generate' | 'regenerate'): Route {
  return defineRoute({
    endpoint: KEY_ENDPOINTS[mode],
    summary:
      mode === 'generate'
        ? 'Create the API key (shown once)'
        : 'Replace the active key (the old one stops working at once)',
    security: SESSION_AUTH,
    authenticate,
    gates: [managing],
    ok: 'The new key',
    responses: {
      ...INACTIVE_OR_ORIGIN,
      ...(mode === 'generate' ? { 409: errorResponse('An active API key already exists') } : NO_ACTIVE_KEY),
      ...KEY_ACTIONS_LIMITED,
    },
    handle: async (_input, req, res) => {
      const { id } = signedInAccount(res);
      const options = webAction(req);
      const created = await (mode === 'generate'
        ? keys.generate(id, clock(), options)
        : keys.regenerate(id, clock(), options));
      const data: NewKeyData = {
        api_key: created.api_key,
        key_prefix: created.key_prefix,
        created_at: created.created_at,
      };
      res.status(201).json({ success: true, data });
    },
  });
}

function revokeRoute({ keys, clock, authenticate, managing }: KeyContext): Route {
  return defineRoute({
    endpoint: KEY_ENDPOINTS.revoke,
    summary: 'Revoke the active key for good',
    security: SESSION_AUTH,
    authenticate,
    gates: [managing],
    ok: 'Revoked',
    responses: { 403: errorResponse('Request origin not allowed'), ...NO_ACTIVE_KEY, ...KEY_ACTIONS_LIMITED },
    handle: async (_input, req, res) => {
      const revoked = await keys.revoke(signedInAccount(res).id, clock(), webAction(req));
      res.json({ success: true, data: { revoked_at: revoked.revoked_at } satisfies RevokedKeyData });
    },
  });
}

function statusRoute({ keys, clock, authenticate }: KeyContext): Route {
  return defineRoute({
    endpoint: KEY_ENDPOINTS.status,
    summary: 'Subscription, key and rate-limit status',
    security: SESSION_AUTH,
    authenticate,
    ok: 'Status',
    handle: (_input, _req, res: Response) => {
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
        rate_limit: {
          limit: subscription?.rate_limit ?? DEFAULT_RATE_LIMIT,
          window_seconds: RATE_LIMIT_WINDOW_SECONDS,
        },
      };
      res.json({ success: true, data });
    },
  });
}
