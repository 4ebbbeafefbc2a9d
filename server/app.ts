import express, { type Express } from 'express';
import { activityRouter } from './activity/activity-router';
import { alertsRouter } from './alerts/alerts-router';
import { logFailures } from './audit/audit-log';
import { authRouter } from './auth/auth-router';
import { billingRoutes, stripeWebhookRoutes } from './billing/billing-routes';
import { catchmentRouter } from './catchment/catchment-router';
import { consoleRoutes, defaultConsoleDir } from './console/console-router';
import { answerHandlers, checkHandlers } from './check/check-endpoint';
import { checkByHandHandlers } from './check/check-by-hand';
import { apiDocs } from './docs/docs-router';
import { healthRouter, readinessRouter } from './health/health-router';
import { errorHandler, notFound } from './http/error-handler';
import { freshData } from './http/fresh-data';
import { methodNotAllowed } from './http/method-not-allowed';
import { mountRoutes } from './http/route';
import { requestLog } from './http/request-log';
import { API_SECURITY_HEADERS, securityHeaders } from './http/security-headers';
import { linkRouters } from './invitations/link-routers';
import { teamInvitationsRouter } from './invitations/team-invitations-router';
import { keysRouter } from './keys/keys-router';
import { rateLimitGate } from './rate-limit/rate-limit-gate';
import type { ServerRuntime } from './runtime';
import { sessionGate } from './sessions/session-gate';
import { signupRouter } from './signup/signup-router';
import { teamRouter } from './team/team-router';
import { usageRouter } from './usage/usage-router';
import { webhooksRouter } from './webhooks/webhooks-router';

/**
 * The whole HTTP application, without listening: the process entry and the tests both run this. It is also the route
 * table: every path is mounted here, and the routers below it know only their own relative paths.
 */
export function createApp(runtime: ServerRuntime): Express {
  const { logger, clock, accounts, keys, declarations, postcodes } = runtime;
  const app = express();
  app.disable('x-powered-by');
  // Answers are per-request and small; a strong ETag would hash every body for nothing.
  app.set('etag', false);
  // TRUST_PROXY: which X-Forwarded-* headers to believe.
  app.set('trust proxy', runtime.config.TRUST_PROXY);

  app.use(requestLog(logger));
  // The JSON API's headers on every response; /docs replaces them with a web page's (see apiDocs).
  app.use(securityHeaders(API_SECURITY_HEADERS));

  // The hot path comes first, and straight on the app, so a check never walks a router level or other routers' stacks.
  const rateLimit = rateLimitGate(runtime.rateLimitCounter, clock);
  // Several instances on PostgreSQL: what another instance committed counts before a key or session is looked at.
  const fresh = runtime.syncData ? [freshData(runtime.syncData, logger)] : [];
  // With Redis counting too, the check learns that from its rate-limit round trip instead (the data epoch), and
  // queries the database only when something was committed since this instance last caught up.
  const dataEpoch = runtime.rateLimitCounter.checksDataEpoch ? runtime.storage.dataEpoch : null;
  const answer = answerHandlers({ declarations, postcodes, clock });
  app.post(
    '/api/v1/check-postcode',
    ...(dataEpoch ? [] : fresh),
    checkHandlers({ keys, declarations, postcodes, rateLimit, clock, dataEpoch, usage: runtime.usage }, answer),
  );
  app.all('/api/v1/check-postcode', methodNotAllowed('POST'));

  // Every feature's routes, each defined once: mounted below in the table's order, and documented from the same list.
  const routes = {
    stripeWebhook: stripeWebhookRoutes(runtime.billing),
    billing: billingRoutes({ billing: runtime.billing, accounts, origins: runtime.origins }),
  };

  app.use('/healthz', healthRouter(declarations, clock, runtime.backends));
  app.use('/readyz', readinessRouter(declarations, clock));
  const docs = apiDocs(Object.values(routes).flat());
  app.use('/api/v1/openapi.json', docs.openApi);
  app.use('/docs', docs.page);

  // The cookie session runs in front of sign-in and key management only, never for the check.
  const { signIn, sessions, idleTimeoutMs, sessionSecret: secret, absoluteTimeoutMs, origins } = runtime;
  const session = sessionGate({ sessions, secret, absoluteTimeoutMs, origins, logger });
  // The pages an invitation or reset link opens: no session needed, but the Origin rules apply as to sign-in.
  const links = linkRoutes(runtime);
  app.use('/api/v1/auth/password-reset', ...fresh, session, links.passwordReset);
  app.use('/api/v1/auth', ...fresh, session, authRouter({ signIn, accounts, sessions, clock, idleTimeoutMs }));
  app.use('/api/v1/invitations', ...fresh, session, links.invitations);
  app.use('/api/v1/signup', ...fresh, session, signupRouter(runtime));
  app.use('/api/v1/keys', ...fresh, session, keysRouter({ keys, accounts, clock }));
  // The catchment and its alerts: the session (PUT, GET) or an API key counted like a check (GET).
  // `audit`: the catchment's and the webhook's changes are recorded with who made them.
  const audit = logFailures(runtime.audit, logger);
  const caller = { accounts, keys, rateLimit, clock, dataEpoch, usage: runtime.usage, audit };
  const { catchments, alerts } = runtime;
  app.use('/api/v1/catchment', ...fresh, session, catchmentRouter({ ...caller, catchments, declarations, postcodes }));
  app.use('/api/v1/alerts', ...fresh, session, alertsRouter({ ...caller, alerts }));
  app.use('/api/v1/webhook', ...fresh, session, webhooksRouter({ ...caller, webhooks: runtime.webhooks }));
  app.post(
    '/api/v1/session/check-postcode',
    ...fresh,
    session,
    checkByHandHandlers({ accounts, clock, rateLimit, usage: runtime.usage, answer }),
  );
  app.all('/api/v1/session/check-postcode', methodNotAllowed('POST'));
  app.use('/api/v1/usage', ...fresh, session, usageRouter({ ...caller, usage: runtime.usage }));
  // The organisation's team, the session only: its invitations and members' reset links, then the team router.
  app.use('/api/v1/team', ...fresh, session, links.team, teamRouter({ team: runtime.team, accounts }));
  // Stripe's webhook: no session and no Origin check (its signature is the credential); then the console's billing.
  mountRoutes(app, routes.stripeWebhook, fresh);
  mountRoutes(app, routes.billing, [...fresh, ...session]);
  app.use('/api/v1/activity', ...fresh, session, activityRouter({ accounts, audit: runtime.audit }));

  // The console (a web app over the same cookie session) at /console/; `/` leads there.
  app.use(consoleRoutes(runtime.config.CONSOLE_DIR ?? defaultConsoleDir()));

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}

/** The routers of invitations and password-reset links (invitations/), over the runtime's services. */
function linkRoutes(runtime: ServerRuntime) {
  const { accounts, sessions, clock, idleTimeoutMs, origins } = runtime;
  const deps = { invitations: runtime.invitations, resets: runtime.passwordResets, accounts, origins };
  return {
    ...linkRouters({
      ...deps,
      resetThrottle: runtime.resetThrottle,
      linkThrottle: runtime.linkThrottle,
      sessions,
      clock,
      idleTimeoutMs,
    }),
    team: teamInvitationsRouter(deps),
  };
}
