import { dummyPasswordHash } from './accounts/passwords';
import { AlertsService } from './alerts/alerts-service';
import { logFailures } from './audit/audit-log';
import { TeamService } from './team/team-service';
import { UsageService } from './usage/usage-service';
import { DEFAULT_LOGIN_LIMITS } from './auth/login-throttle';
import { SignInService } from './auth/sign-in';
import { BackgroundWork } from './background';
import type { DeclarationRepository } from './declarations/declaration-repository';
import type { IngestService } from './ingest/service';
import { CatchmentService } from './catchment/catchment-service';
import { ConfigError, stripeSettings, type Config } from './config';
import { openBillingService, type BillingService } from './billing/billing-service';
import type { CloseStack } from './lifecycle';
import type { PostcodeIndex } from './postcodes/postcode-index';
import { PostcodeService } from './postcodes/postcode-service';
import type { AuthSettings, DataRuntime, RuntimeOverrides, ServerRuntime } from './runtime-types';
import { OriginPolicy } from './sessions/origin-policy';
import { resolveSessionSecret } from './sessions/session-secret';
import type { SessionStore } from './sessions/session-store';
import { WebhookService } from './webhooks/webhook-service';
import { InvitationService } from './invitations/invitation-service';
import { PasswordResetService } from './invitations/password-reset-service';
import { SignupService } from './signup/signup-service';
import { openMailer } from './mail/open-mailer';
import { MailLimit, mailThrottleLimits } from './mail/mail-limit';
import { linkThrottleLimits } from './invitations/links';
import type { LoginThrottle } from './auth/login-throttle';

export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_ABSOLUTE_TIMEOUT_MS = 12 * 3600_000;

/**
 * The serving process over the account data: the check's counters, the postcode index, sessions and sign-in, the
 * catchments with their alerts and webhooks, and the background work (started by index.ts once it listens).
 * Construction only: nothing here starts a timer.
 */
export async function openServer(
  data: DataRuntime,
  overrides: RuntimeOverrides,
  stack: CloseStack,
): Promise<ServerRuntime> {
  const { config, storage, logger } = data;
  const auth: AuthSettings = { ...authOptionsFromConfig(config), ...overrides.auth };
  const timeouts = sessionTimeouts(auth);
  if ((config.DATABASE_URL || config.REDIS_URL) && !auth.sessionSecret) {
    // A secret generated into one instance's DATA_DIR would make its cookies worthless on every other instance.
    throw new ConfigError(
      'Invalid configuration: SESSION_SECRET is required when DATABASE_URL or REDIS_URL is set (every instance must sign session cookies with the same secret)',
    );
  }
  // Opened first, so that an unreachable Redis stops the start before the rest opens.
  const rateLimitCounter = overrides.rateLimitCounter ?? (await storage.rateLimit());
  // Population-weighted LGAs: the bundled ABS correspondence, or POSTCODE_LGA_URL's (cached) when set.
  const postcodeService = overrides.postcodes
    ? null
    : await PostcodeService.open({
        source: config.POSTCODE_LGA_URL,
        logger,
        correspondenceCache: storage.correspondenceCache,
      });
  const postcodes = overrides.postcodes ?? postcodeService!;
  const sessionSecret = await sessionSecretOf(data, auth);
  const sessions = await openSessions(data, timeouts);
  const loginLimits = { ...DEFAULT_LOGIN_LIMITS, ...auth.loginLimits };
  const throttle = await storage.loginThrottle(loginLimits, () => data.clock().getTime());
  // The stand-in hash for unknown emails is made now, so the first such login is not slower than the others.
  await dummyPasswordHash();
  const alerting = await openAlerting(data, postcodes, overrides, stack);
  const links = await openLinks(data, sessions, throttle, stack);
  const audit = logFailures(data.audit, logger);
  const usage = new UsageService(await storage.usage(), data.clock, logger);
  // Written before the usage store closes: the last few seconds of counts are not lost.
  stack.defer('the usage counts', () => usage.close());
  // What the background work drives and the app serves alike.
  const services = { ...alerting, billing: await openBilling(data) };
  const background = new BackgroundWork({
    links: [links.invitations, links.passwordResets, links.signup],
    usage,
    ...services,
    logger,
    sessions,
    throttle,
    keys: data.keys,
    declarations: data.declarations.store,
    refresh: data.refreshSettings,
    schedule: config.INGEST_SCHEDULE,
    postcodes: postcodeService,
  });
  // Registered last, so stopped first: no job runs on while the services and stores under it close.
  stack.defer('the background work', () => background.stop());
  return {
    ...data,
    ...services,
    ...links,
    ...timeouts,
    postcodes,
    rateLimitCounter,
    sessions,
    sessionSecret,
    usage,
    origins: new OriginPolicy({
      extensionOrigins: auth.extensionOrigins,
      publicOrigins: auth.publicOrigins,
      listenHost: auth.listenHost,
    }),
    throttle,
    signIn: new SignInService(data.accounts, throttle, audit, undefined, (email) => links.signup.settled(email)),
    team: new TeamService({ accounts: data.accounts, audit, sessions, logger, sentInvitations: links.invitations }),
    backends: storage.probes,
    background,
    startBackgroundWork: () => startBackgroundWork(background, data.declarations),
  };
}

/** Starts the background work; a check refused for want of data then tells when the schedule will next try. */
function startBackgroundWork(background: BackgroundWork, declarations: DeclarationRepository): IngestService {
  background.start();
  const ingest = background.ingest!;
  declarations.nextRefreshAttempt = () => ingest.nextAttempt();
  return ingest;
}

/** Billing with Stripe when STRIPE_* are set, over the accounts document (AccountService's own store). */
async function openBilling(data: DataRuntime): Promise<BillingService> {
  const { config, accounts, clock, logger } = data;
  const audit = logFailures(data.audit, logger);
  return openBillingService({ settings: stripeSettings(config), accounts, audit, clock, logger });
}

/** The sign-in settings that come from the configuration: EXTENSION_ORIGINS, PUBLIC_URL, HOST and SESSION_*. */
export function authOptionsFromConfig(
  config: Pick<
    Config,
    'SESSION_SECRET' | 'EXTENSION_ORIGINS' | 'PUBLIC_URL' | 'HOST' | 'SESSION_IDLE_MINUTES' | 'SESSION_ABSOLUTE_HOURS'
  >,
): Omit<AuthSettings, 'loginLimits'> {
  return {
    sessionSecret: config.SESSION_SECRET,
    extensionOrigins: config.EXTENSION_ORIGINS,
    publicOrigins: config.PUBLIC_URL,
    listenHost: config.HOST,
    idleTimeoutMs: config.SESSION_IDLE_MINUTES === undefined ? undefined : config.SESSION_IDLE_MINUTES * 60_000,
    absoluteTimeoutMs:
      config.SESSION_ABSOLUTE_HOURS === undefined ? undefined : config.SESSION_ABSOLUTE_HOURS * 3600_000,
  };
}

function sessionTimeouts(auth: AuthSettings): { idleTimeoutMs: number; absoluteTimeoutMs: number } {
  const idleTimeoutMs = auth.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const absoluteTimeoutMs = auth.absoluteTimeoutMs ?? DEFAULT_ABSOLUTE_TIMEOUT_MS;
  if (!(idleTimeoutMs > 0 && absoluteTimeoutMs > 0)) throw new Error('session timeouts must be positive');
  return { idleTimeoutMs, absoluteTimeoutMs };
}

async function sessionSecretOf(data: DataRuntime, auth: AuthSettings): Promise<string> {
  const secret = await resolveSessionSecret(data.dataDir, auth.sessionSecret);
  if (secret.source === 'generated') {
    data.logger.info(
      'generated a session secret in DATA_DIR/session-secret (set SESSION_SECRET to manage it yourself)',
    );
  }
  if (secret.tightenedPermissions) {
    data.logger.warn('DATA_DIR/session-secret was readable by others; its mode is now 0600');
  }
  return secret.secret;
}

/** The session store of the registry, with its failed writes logged and what expired while stopped removed. */
async function openSessions(
  data: DataRuntime,
  timeouts: { idleTimeoutMs: number; absoluteTimeoutMs: number },
): Promise<SessionStore> {
  const sessions = await data.storage.sessions({ ...timeouts, clock: data.clock });
  sessions.on('error', (err: unknown) => data.logger.error({ err }, 'session store write failed'));
  await sessions.purge();
  return sessions;
}

/**
 * Invitations and password resets over the accounts document (AccountService's own store), the mailer they send
 * their links with (SMTP_URL) and the one limit on it (MAIL_LIMIT_*, counted where sign-ins are), and password-reset
 * requests' and links' throttles: sign-in's, in buckets of their own.
 */
async function openLinks(
  data: DataRuntime,
  sessions: SessionStore,
  throttle: LoginThrottle,
  stack: CloseStack,
): Promise<
  Pick<
    ServerRuntime,
    'mailer' | 'mailLimit' | 'invitations' | 'passwordResets' | 'resetThrottle' | 'linkThrottle' | 'signup'
  >
> {
  const { storage, accounts, clock, logger, config } = data;
  const mailer = await openMailer(config, logger);
  stack.defer('the mailer', () => mailer.close());
  const limits = { perRecipient: config.MAIL_LIMIT_PER_RECIPIENT, perOrganisation: config.MAIL_LIMIT_PER_ORGANISATION };
  const now = () => clock().getTime();
  const mailLimit = new MailLimit((await storage.loginThrottle(mailThrottleLimits(limits), now)).scoped('mail'));
  const audit = logFailures(data.audit, logger);
  const passwordResets = new PasswordResetService({
    accounts,
    audit,
    mailer,
    mailLimit,
    sessions,
    clock,
    logger,
  });
  // Requests answered already finish their write and e-mail before the stores close.
  stack.defer('the password-reset requests', () => passwordResets.drain());
  // Sign-ups are limited as sign-ins, counted apart; their mail (sent after the answer) goes out before the mailer closes.
  const signup = new SignupService({
    accounts,
    audit,
    // Its mail (a verification link, or a notice to an address that has an account) is asked for by nobody signed in.
    mailer: mailLimit.mailer(mailer, logger),
    throttle: throttle.scoped('signup'),
    clock,
    logger,
  });
  stack.defer('the sign-up e-mails', () => signup.drain());
  return {
    mailer,
    mailLimit,
    invitations: new InvitationService({
      accounts,
      audit,
      mailer,
      mailLimit,
      billing: stripeSettings(config) !== null,
      clock,
    }),
    passwordResets,
    resetThrottle: throttle.scoped('reset'),
    linkThrottle: (await storage.loginThrottle(linkThrottleLimits(throttle.limits), now)).scoped('link'),
    signup,
  };
}

/**
 * The catchments, their alerts and the webhooks those go to. The webhooks subscribe to the alerts themselves, before
 * any alert can be announced (alerts are processed only once the background work starts).
 */
async function openAlerting(
  data: DataRuntime,
  postcodes: PostcodeIndex,
  overrides: RuntimeOverrides,
  stack: CloseStack,
): Promise<{ catchments: CatchmentService; alerts: AlertsService; webhooks: WebhookService }> {
  const { storage, clock, logger, declarations } = data;
  const [repository, webhookRepository] = await Promise.all([storage.catchments(), storage.webhooks()]);
  const sources = { postcodes, declarations, titleOf: (agrn: string) => declarations.titleOf(agrn) };
  const alerts = new AlertsService({ repository, sources, clock, logger, refreshes: declarations.store });
  const webhooks = new WebhookService({
    ...overrides.webhooks,
    repository: webhookRepository,
    clock,
    logger,
    allowPrivateAddresses: data.config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
    alerts,
  });
  // Also when a caller started them directly (a test's worker): the processing and the attempts under way finish.
  stack.defer('the webhook worker', () => webhooks.stop());
  stack.defer('the alerts', () => alerts.stop());
  return { catchments: new CatchmentService({ repository, sources, clock }), alerts, webhooks };
}
