import { Router, type Request, type RequestHandler, type Response } from 'express';
import { MAX_CATCHMENT_ENTRIES, MAX_CATCHMENT_POSTCODES, type CatchmentResponse } from '../../shared/api/catchment';
import { isAustralianPostcode } from '../../shared/api/postcode';
import { sydneyToday } from '../../shared/domain/dates';
import { isSubscriptionActive, type AccountService } from '../accounts/account-service';
import { sessionOrApiKey } from '../auth/session-or-api-key';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { dataMetadata, lastRefreshOrUnavailable } from '../check/data-metadata';
import { AppError } from '../http/app-error';
import { jsonBodyUpTo } from '../http/json-body';
import { methodNotAllowed } from '../http/method-not-allowed';
import type { KeyService } from '../keys/key-service';
import type { PostcodeIndex } from '../postcodes/postcode-index';
import { requireSession, signedInAccount } from '../sessions/require-session';
import { catchmentCsv } from './catchment-csv';
import type { CatchmentService } from './catchment-service';

export interface CatchmentRouterDeps {
  catchments: CatchmentService;
  accounts: AccountService;
  keys: KeyService;
  declarations: DeclarationRepository;
  postcodes: PostcodeIndex;
  /** The check's rate limiter: a GET with an API key counts against the key's limit like a check. */
  rateLimit: readonly RequestHandler[];
  clock: () => Date;
}

/** A catchment body: MAX_CATCHMENT_ENTRIES postcodes (about 140 kB written compactly) fit with room for spacing. */
const MAX_CATCHMENT_BODY_BYTES = 512 * 1024;

/** The offending value as shown in error.details: strings as they are, anything else as JSON text. */
const shown = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));

/**
 * PUT/GET /api/v1/catchment (mounted behind the cookie session). PUT takes the session (Origin-checked by the session
 * middleware in front); GET the session or an `x-api-key` header. Either way the catchment is the caller's
 * subscription's.
 */
export function catchmentRouter(deps: CatchmentRouterDeps): Router {
  const { catchments, accounts, declarations, postcodes, clock } = deps;
  const subscriptionIdOf = (res: Response): string | null =>
    accounts.subscriptionOf(signedInAccount(res).id)?.id ?? null;

  const put: RequestHandler = async (req, res) => {
    const account = signedInAccount(res);
    const subscription = accounts.subscriptionOf(account.id);
    if (!subscription || !isSubscriptionActive(subscription, clock())) throw new AppError('subscription_inactive');
    const body = req.body as unknown;
    const list =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>).postcodes
        : undefined;
    if (!Array.isArray(list)) throw new AppError('invalid_request');
    // Checked before anything is looked at, whatever the entries are: the documented maxItems.
    if (list.length > MAX_CATCHMENT_ENTRIES) throw new AppError('catchment_too_large');
    const distinct = new Map<string, unknown>();
    for (const value of list) distinct.set(typeof value === 'string' ? value : `\0${shown(value)}`, value);
    if (distinct.size > MAX_CATCHMENT_POSTCODES) throw new AppError('catchment_too_large');
    const offenders: string[] = [];
    for (const value of distinct.values()) {
      if (!isAustralianPostcode(value) || postcodes.get(value) === undefined) offenders.push(shown(value));
    }
    if (offenders.length > 0) throw new AppError('invalid_postcode', undefined, {}, offenders);
    // Answered as GET, which needs the data: before the first refresh nothing is saved either.
    lastRefreshOrUnavailable(declarations);
    await catchments.replace(subscription.id, [...distinct.values()] as string[]);
    get(req, res);
  };

  const get = (req: Request, res: Response): void => {
    const format = req.query.format;
    if (format !== undefined && format !== 'csv' && format !== 'json') throw new AppError('invalid_request');
    const lastUpdated = lastRefreshOrUnavailable(declarations);
    const now = clock();
    const day = sydneyToday(now);
    const subscriptionId = subscriptionIdOf(res);
    const data =
      subscriptionId === null
        ? { summary: { green: 0, amber: 0, red: 0, unknown: 0 }, postcodes: [], updated_at: null }
        : catchments.view(subscriptionId, day);
    res.setHeader('Cache-Control', 'no-store');
    if (format === 'csv') {
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', 'attachment; filename="catchment.csv"');
      res.send(catchmentCsv(data.postcodes));
      return;
    }
    const response: CatchmentResponse = {
      success: true,
      data,
      metadata: dataMetadata(lastUpdated, now, day),
    };
    res.json(response);
  };

  const router = Router();
  router.get('/', sessionOrApiKey(deps), get);
  router.put('/', requireSession(accounts), jsonBodyUpTo(MAX_CATCHMENT_BODY_BYTES), put);
  router.all('/', methodNotAllowed('GET, HEAD, PUT'));
  return router;
}
