import express, { type Express, type RequestHandler } from 'express';
import { activityRoutes } from './activity/activity-routes';
import { ssoSettingsRoutes } from './sso/sso-settings-routes';
import { alertsRoutes } from './alerts/alerts-routes';
import { logFailures } from './audit/audit-log';
import { authRoutes } from './auth/auth-routes';
import type { SessionOrApiKeyDeps } from './auth/session-or-api-key';
import { billingRoutes, stripeWebhookRoutes } from './billing/billing-routes';
import { catchmentRoutes } from './catchment/catchment-routes';
import { checkByHandRoutes } from './check/check-by-hand-routes';
import { CheckAnswers } from './check/check-answers';
import { checkBatchRoutes } from './check/check-batch-routes';
import { answerHandlers, checkRoutes } from './check/check-routes';
import { consoleRoutes, defaultConsoleDir } from './console/console-router';
import { apiDocs } from './docs/docs-router';
import { healthRoutes } from './health/health-routes';
import { errorHandler, notFound } from './http/error-handler';
import { freshData } from './http/fresh-data';
import { mountRoutes } from './http/route';
import { requestLog } from './http/request-log';
import { API_SECURITY_HEADERS, securityHeaders } from './http/security-headers';
import { linkRoutes } from './invitations/link-routes';
import { teamInvitationsRoutes } from './invitations/team-invitations-routes';
import { keyRoutes } from './keys/keys-routes';
import { DeclarationPages } from './mcp/declaration-views';
import { mcpRoutes, mountMcp } from './mcp/mcp-routes';
import { mcpTools } from './mcp/mcp-tools';
import { SuburbIndex } from './postcodes/suburb-index';
import { rateLimitGate } from './rate-limit/rate-limit-gate';
import type { ServerRuntime } from './runtime';
import { sessionGate } from './sessions/session-gate';
import { signupRoutes } from './signup/signup-routes';
import { ssoAuthRoutes } from './sso/sso-auth-routes';
import { samlFinishRoutes, samlRoutes } from './sso/saml-routes';
import { SSO_BROWSER_STEPS, ssoBrowserErrors } from './sso/sso-interruption';
import { teamRoutes } from './team/team-routes';
import { usageRoutes } from './usage/usage-routes';
import { webhookRoutes } from './webhooks/webhooks-routes';

/**
 * The whole HTTP application, without listening: the process entry and the tests both run this. It is also the route
 * table: every route group is mounted here, in this order, behind the gates its paths share.
 */
export function createApp(runtime: ServerRuntime): Express {
  const { logger, clock, declarations, postcodes } = runtime;
  const app = express();
  app.disable('x-powered-by');
  // Answers are per-request and small; a strong ETag would hash every body for nothing.
  app.set('etag', false);
  // TRUST_PROXY: which X-Forwarded-* headers to believe.
  app.set('trust proxy', runtime.config.TRUST_PROXY);

  app.use(requestLog(logger));
  // The JSON API's headers on every response; /docs replaces them with a web page's (see apiDocs).
  app.use(securityHeaders(API_SECURITY_HEADERS));

  const rateLimit = rateLimitGate(runtime.rateLimitCounter, clock);
  // Several instances on PostgreSQL: what another instance committed counts before a key or session is looked at.
  const fresh = runtime.syncData ? [freshData(runtime.syncData, logger)] : [];
  // With Redis counting too, the check learns that from its rate-limit round trip instead (the data epoch), and
  // queries the database only when something was committed since this instance last caught up.
  const dataEpoch = runtime.rateLimitCounter.checksDataEpoch ? runtime.storage.dataEpoch : null;
  // One cache of encoded answers for the check, the check by hand and the batch.
  const answers = new CheckAnswers(declarations, postcodes);
  const answer = answerHandlers(answers, clock);
  // The cookie session runs in front of sign-in and the console's calls, never for the check.
  const { sessions, sessionSecret: secret, absoluteTimeoutMs, origins } = runtime;
  const session = sessionGate({ sessions, secret, absoluteTimeoutMs, origins, logger });
  const signedIn = [...fresh, ...session];

  // Every feature's routes, each defined once: mounted below in the table's order, and documented from the same list.
  const routes = featureRoutes(runtime, { rateLimit, dataEpoch, answers, answer, fresh, signedIn });
  // The hot path comes first, and straight on the app, so a check never walks other routes' stacks.
  mountRoutes(app, routes.check, dataEpoch ? [] : fresh);
  // The probes' paths answer GET and HEAD alone, any other method not found (404) as always: mounted without a 405.
  for (const route of routes.health) app.get(route.endpoint.path, ...route.handlers);
  const docs = apiDocs(Object.values(routes).flat());
  app.use('/api/v1/openapi.json', docs.openApi);
  app.use('/docs', docs.page);

  // SAML's ACS and metadata without the cookie session: the IdP's page posts its answer from another site (no Origin
  // check may refuse it), and the ACS starts no session — SAML's finish does, under the usual gates below.
  mountRoutes(app, routes.saml, fresh);
  mountRoutes(app, routes.samlFinish, signedIn);
  // The pages an invitation or reset link opens: no session needed, but the Origin rules apply as to sign-in.
  mountRoutes(app, routes.passwordReset, signedIn);
  // Single sign-on's sign-in: discovery, the start (302 to the provider) and the OpenID Connect callback (a session).
  mountRoutes(app, routes.ssoAuth, signedIn);
  // A browser in the middle of a sign-in that this service (or the session gate in front) cannot carry through is
  // sent to the sign-in page's words, not left on a page of JSON: after the SAML and sign-in routes, before the rest.
  app.use([...SSO_BROWSER_STEPS], ssoBrowserErrors(logger));
  mountRoutes(app, routes.auth, signedIn, '/api/v1/auth');
  mountRoutes(app, routes.invitations, signedIn, '/api/v1/invitations');
  mountRoutes(app, routes.signup, signedIn, '/api/v1/signup');
  mountRoutes(app, routes.keys, signedIn, '/api/v1/keys');
  // The catchment, its alerts and the webhook: the session, or for reads an API key counted like a check.
  mountRoutes(app, routes.catchment, signedIn, '/api/v1/catchment');
  mountRoutes(app, routes.alerts, signedIn, '/api/v1/alerts');
  mountRoutes(app, routes.webhook, signedIn, '/api/v1/webhook');
  // The check by hand runs the session behind its own 405 (see checkByHandRoutes).
  mountRoutes(app, routes.checkByHand);
  // A list's checks: the key's gate as the check's, or the session behind its own (see checkBatchRoutes).
  mountRoutes(app, routes.checkBatch);
  mountRoutes(app, routes.usage, signedIn, '/api/v1/usage');
  // The organisation's team, the session only: its invitations and members' reset links, then its members.
  mountRoutes(app, routes.teamInvitations, signedIn);
  mountRoutes(app, routes.team, signedIn, '/api/v1/team');
  // Stripe's webhook: no session and no Origin check (its signature is the credential); then the console's billing.
  mountRoutes(app, routes.stripeWebhook, fresh);
  mountRoutes(app, routes.billing, signedIn, '/api/v1/billing');
  mountRoutes(app, routes.activity, signedIn, '/api/v1/activity');
  // AI assistants over MCP: the key's gate (Bearer or x-api-key) on data as every instance committed it.
  mountMcp(app, routes.mcp, fresh, origins);
  mountRoutes(app, routes.ssoSettings, signedIn, '/api/v1/organisation/sso');

  // The console (a web app over the same cookie session) at /console/; `/` leads there.
  app.use(consoleRoutes(runtime.config.CONSOLE_DIR ?? defaultConsoleDir()));

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}

/** What the route table shares with the features: the check's limit and answers, and the signed-in gates. */
interface SharedGates extends Pick<SessionOrApiKeyDeps, 'rateLimit' | 'dataEpoch'> {
  answers: CheckAnswers;
  answer: RequestHandler[];
  /** The data brought up to date with what other instances committed (several instances on PostgreSQL). */
  fresh: RequestHandler[];
  signedIn: RequestHandler[];
}

/** Each feature's routes, defined once over its services: what createApp mounts, and the document lists. */
function featureRoutes(runtime: ServerRuntime, shared: SharedGates) {
  const { rateLimit, dataEpoch, answers, answer, fresh, signedIn } = shared;
  const { accounts, keys, declarations, postcodes, usage, sessions, clock, idleTimeoutMs, origins } = runtime;
  const linkDeps = { invitations: runtime.invitations, resets: runtime.passwordResets, accounts, origins };
  const { resetThrottle, linkThrottle } = runtime;
  const links = linkRoutes({ ...linkDeps, sessions, clock, idleTimeoutMs, resetThrottle, linkThrottle });
  // Reads by API key are counted like a check; the catchment's and the webhook's changes are audited with who made them.
  const audit = logFailures(runtime.audit, runtime.logger);
  const caller = { accounts, keys, clock, usage, audit, rateLimit, dataEpoch };
  const samlDeps = { flows: runtime.ssoSignIn.flows, directory: runtime.sso.directory, audit, logger: runtime.logger };
  return {
    check: checkRoutes({ keys, rateLimit, clock, dataEpoch, usage }, answer),
    health: healthRoutes({ declarations, clock, backends: runtime.backends }),
    passwordReset: links.passwordReset,
    auth: authRoutes({ signIn: runtime.signIn, accounts, sessions, clock, idleTimeoutMs }),
    invitations: links.invitations,
    signup: signupRoutes({
      config: runtime.config,
      signup: runtime.signup,
      origins,
      linkThrottle,
      accounts,
      sessions,
      clock,
      idleTimeoutMs,
    }),
    keys: keyRoutes({ keys, accounts, clock }),
    catchment: catchmentRoutes({ ...caller, catchments: runtime.catchments, declarations, postcodes }),
    alerts: alertsRoutes({ ...caller, alerts: runtime.alerts }),
    webhook: webhookRoutes({ ...caller, webhooks: runtime.webhooks }),
    checkByHand: checkByHandRoutes({ accounts, clock, before: signedIn, rateLimit, usage, answer }),
    checkBatch: checkBatchRoutes({
      ...caller,
      answers,
      allowance: runtime.batchAllowance,
      beforeKey: dataEpoch ? [] : fresh,
      signedIn,
    }),
    usage: usageRoutes({ accounts, keys, rateLimit, clock, dataEpoch, usage }),
    teamInvitations: teamInvitationsRoutes(linkDeps),
    team: teamRoutes({ team: runtime.team, accounts }),
    stripeWebhook: stripeWebhookRoutes(runtime.billing),
    billing: billingRoutes({ billing: runtime.billing, accounts, origins }),
    activity: activityRoutes({ accounts, audit: runtime.audit }),
    // The service as an MCP server (issue #39): the check's answers, key, rate limit and usage.
    mcp: mcpRoutes({
      keys,
      clock,
      rateLimit,
      origins,
      rateLimitCounter: runtime.rateLimitCounter,
      usage,
      logger: runtime.logger,
      tools: mcpTools({
        answers,
        declarations,
        pages: new DeclarationPages(declarations),
        suburbs: new SuburbIndex(postcodes),
        catchments: runtime.catchments,
        alerts: runtime.alerts,
      }),
    }),
    saml: samlRoutes({ ...samlDeps, origins }),
    samlFinish: samlFinishRoutes({ ...samlDeps, completion: runtime.ssoSignIn.signIn }),
    ssoSettings: ssoSettingsRoutes({ settings: runtime.sso.settings, accounts, origins }),
    ssoAuth: ssoAuthRoutes({
      ...runtime.ssoSignIn,
      directory: runtime.sso.directory,
      origins,
      logger: runtime.logger,
    }),
  };
}
