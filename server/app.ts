import express, { type Express } from 'express';
import { accountRoutes } from './auth/account-routes';
import type { AuthRuntime } from './auth/auth-runtime';
import { CHECK_PATH, checkHandlers } from './check/check-endpoint';
import { docsRouter } from './docs/docs-router';
import { healthRouter } from './health/health-router';
import { errorHandler, notFound } from './http/error-handler';
import { methodNotAllowed } from './http/method-not-allowed';
import { requestLog } from './http/request-log';
import { API_SECURITY_HEADERS, securityHeaders } from './http/security-headers';
import type { Logger } from './logger';
import type { PostcodeIndex } from './postcodes/postcode-index';
import { checkRateLimit, WINDOW_MS } from './rate-limit/check-rate-limit';
import { InMemorySlidingWindow, type SlidingWindowCounter } from './rate-limit/sliding-window';
import type { DataServices } from './services';

export interface AppDeps {
  logger: Logger;
  data: Pick<DataServices, 'accounts' | 'keys' | 'declarations'>;
  postcodes: PostcodeIndex;
  /** Express's `trust proxy` (TRUST_PROXY): which X-Forwarded-* headers to believe. */
  trustProxy?: boolean | number | string;
  /** Where request times are counted; in-process by default, a shared store when running several instances. */
  rateLimitCounter?: SlidingWindowCounter;
  clock?: () => Date;
  /** Sessions, login throttle, audit log (openAuth): the cookie-session endpoints /api/v1/auth and /api/v1/keys. */
  auth: AuthRuntime;
}

/** The whole HTTP application, without listening: the process entry and the tests both run this. */
export function createApp(deps: AppDeps): Express {
  const clock = deps.clock ?? (() => new Date());
  const app = express();
  app.disable('x-powered-by');
  // Answers are per-request and small; a strong ETag would hash every body for nothing.
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy ?? false);

  app.use(requestLog(deps.logger));
  // The JSON API's headers on every response; /docs replaces them with a web page's (see docsRouter).
  app.use(securityHeaders(API_SECURITY_HEADERS));

  // The hot path comes first, so a check never walks the other routers' stacks.
  app.post(
    CHECK_PATH,
    checkHandlers({
      keys: deps.data.keys,
      declarations: deps.data.declarations,
      postcodes: deps.postcodes,
      rateLimit: checkRateLimit(deps.rateLimitCounter ?? new InMemorySlidingWindow(WINDOW_MS), () => clock().getTime()),
      clock,
    }),
  );
  app.all(CHECK_PATH, methodNotAllowed('POST'));
  app.use(healthRouter(deps.data.declarations, clock));
  app.use(docsRouter());
  // Session middleware runs only under /api/v1/auth and /api/v1/keys (see accountRoutes), never for the check.
  app.use('/api/v1', accountRoutes({ runtime: deps.auth, accounts: deps.data.accounts, keys: deps.data.keys }));

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
