import { dummyPasswordHash } from './accounts/passwords';
import { openAlerting } from './alerts/open-alerting';
import { logFailures, type AuditRecorder } from './audit/audit-log';
import { DEFAULT_LOGIN_LIMITS } from './auth/login-throttle';
import { SignInService } from './auth/sign-in';
import { BackgroundWork } from './background';
import { openBilling } from './billing/open-billing';
import type { DeclarationRepository } from './declarations/declaration-repository';
import { ingestJob, type IngestJob, type IngestJobOptions } from './ingest/ingest-job';
import type { IngestService } from './ingest/service';
import { ConfigError, sharedInstance, stripeSettings, type Config } from './config';
import { every, PURGE_INTERVAL_MS, type OpenedFeature, type OpenFeatures } from './lifecycle';
import { PostcodeService } from './postcodes/postcode-service';
import type { AccountData, AuthSettings, RuntimeOverrides, ServerRuntime } from './runtime-types';
import { OriginPolicy } from './sessions/origin-policy';
import { openSessions } from './sessions/open-sessions';
import { resolveSessionSecret } from './sessions/session-secret';
import type { SessionStore } from './sessions/session-store';
import { InvitationService } from './invitations/invitation-service';
import { openPasswordResets } from './invitations/open-password-resets';
import { SignupService } from './signup/signup-service';
import { openMailer } from './mail/open-mailer';
import { MailLimit, mailThrottleLimits } from './mail/mail-limit';
import { linkThrottleLimits } from './invitations/links';
import type { LoginThrottle } from './auth/login-throttle';
import { openTeam } from './team/open-team';
import { openUsage } from './usage/open-usage';
import { openSso, type SsoRuntime } from './sso/open-sso';
import { openSsoSignIn } from './sso/open-sso-sign-in';
import { RequireSso } from './sso/require-sso';

export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_ABSOLUTE_TIMEOUT_MS = 12 * 3600_000;

/**
 * The serving process over the account data: the check's counters, the postcode index, sessions and sign-in, the
 * catchments with their alerts and webhooks, usage, billing, and the background work (started by index.ts once it
 * listens). Construction only: nothing here starts a timer.
 *
 * The features open in this order, which is the order their jobs start (and, reversed, stop) and their closers are
 * registered (and, reversed, run): the account data's keys (runtime.ts), the sessions, sign-in's throttle, the
 * catchments, alerts and webhooks, the mail and its links (invitations, password resets, sign-up), usage, billing,
 * the team, and last the ingest schedule. The background work is registered last, so stopped first: no job runs on
 * while the services and stores under it close.
 */
// eslint-disable-next-line max-lines-per-function -- one line per feature opened; single sign-on's made it 82
export async function openServer(
  data: AccountData,
  overrides: RuntimeOverrides,
  features: OpenFeatures,
): Promise<ServerRuntime> {
  const { config, storage, logger } = data;
  const auth: AuthSettings = { ...authOptionsFromConfig(config), ...overrides.auth };
  const timeouts = sessionTimeouts(auth);
  requireSharedSecret(config, auth);
  // Opened first, so that an unreachable Redis stops the start before the rest opens.
  const rateLimitCounter = overrides.rateLimitCounter ?? (await storage.rateLimit());
  const batchAllowance = await storage.batchAllowance(config.BATCH_ROWS_PER_DAY);
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
  const sessions = features.add(
    await openSessions((policy) => storage.sessions(policy), { ...timeouts, clock: data.clock }, logger),
  );
  const throttle = features.add(await openThrottle(data, auth));
  // The stand-in hash for unknown emails is made now, so the first such login is not slower than the others.
  await dummyPasswordHash();
  const sso = await openSso(data);
  const [repository, webhookRepository] = await Promise.all([storage.catchments(), storage.webhooks()]);
  const alerting = features.add(
    openAlerting({
      repository,
      webhookRepository,
      postcodes,
      declarations: data.declarations,
      clock: data.clock,
      logger,
      allowPrivateAddresses: config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
      tuning: overrides.webhooks,
    }),
  );
  const links = await openLinks(data, sessions, throttle, features, sso);
  const audit = logFailures(data.audit, logger);
  const usage = features.add(openUsage(await storage.usage(), data.clock, logger));
  const billing = features.add(
    await openBilling({ config, accounts: data.accounts, audit, clock: data.clock, logger }),
  );
  const team = features.add(
    openTeam({ accounts: data.accounts, audit, sessions, logger, sentInvitations: links.invitations, sso }),
  );
  const ssoSignIn = features.add(await openSsoSignIn(data, sso.directory));
  const ingest = ingestJob(ingestOptions(data, postcodeService));
  const background = new BackgroundWork([...features.jobs, ingest]);
  features.stack.defer('the background work', () => background.stop());
  return {
    ...data,
    ...alerting,
    ...links,
    ...timeouts,
    billing,
    sso,
    ssoSignIn,
    postcodes,
    rateLimitCounter,
    batchAllowance,
    sessions,
    sessionSecret,
    usage,
    origins: new OriginPolicy({
      extensionOrigins: auth.extensionOrigins,
      publicOrigins: auth.publicOrigins,
      listenHost: auth.listenHost,
    }),
    throttle,
    signIn: openSignIn(data, throttle, audit, links, sso),
    team,
    backends: storage.probes,
    background,
    startBackgroundWork: () => startBackgroundWork(background, ingest, data.declarations),
  };
}

/** Password sign-in, once a sign-up's write is done, under each organisation's Require SSO. */
function openSignIn(
  data: AccountData,
  throttle: LoginThrottle,
  audit: AuditRecorder,
  links: Pick<ServerRuntime, 'signup'>,
  sso: SsoRuntime,
): SignInService {
  const settled = (email: string) => links.signup.settled(email);
  return new SignInService(data.accounts, throttle, audit, undefined, settled, new RequireSso(sso.directory));
}

/** A secret generated into one instance's DATA_DIR would make its cookies worthless on every other instance. */
function requireSharedSecret(config: Config, auth: AuthSettings): void {
  if (sharedInstance(config) && !auth.sessionSecret) {
    throw new ConfigError(
      'Invalid configuration: SESSION_SECRET is required when DATABASE_URL or REDIS_URL is set (every instance must sign session cookies with the same secret)',
    );
  }
}

/** Sign-in's throttle (LOGIN limits over the defaults), whose old failures its purge drops. */
async function openThrottle(data: AccountData, auth: AuthSettings): Promise<OpenedFeature<LoginThrottle>> {
  const limits = { ...DEFAULT_LOGIN_LIMITS, ...auth.loginLimits };
  const throttle = await data.storage.loginThrottle(limits, () => data.clock().getTime());
  return { service: throttle, jobs: [every('purge', PURGE_INTERVAL_MS, () => throttle.purge())], closers: [] };
}

/** The daily refresh from the runtime's refresh settings, renewing POSTCODE_LGA_URL's correspondence first. */
function ingestOptions(data: AccountData, postcodes: PostcodeService | null): IngestJobOptions {
  return {
    refresh: data.refreshSettings,
    schedule: data.config.INGEST_SCHEDULE,
    declarations: data.declarations.store,
    postcodes,
    logger: data.logger,
  };
}

/** Starts the background work; a check refused for want of data then tells when the schedule will next try. */
function startBackgroundWork(
  background: BackgroundWork,
  ingest: IngestJob,
  declarations: DeclarationRepository,
): IngestService {
  background.start();
  const schedule = ingest.service!;
  declarations.nextRefreshAttempt = () => schedule.nextAttempt();
  return schedule;
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

async function sessionSecretOf(data: AccountData, auth: AuthSettings): Promise<string> {
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

/**
 * Invitations and password resets over the accounts document (AccountService's own store), the mailer they send
 * their links with (SMTP_URL) and the one limit on it (MAIL_LIMIT_*, counted where sign-ins are), and password-reset
 * requests' and links' throttles: sign-in's, in buckets of their own. The mailer is added as soon as it is open, so
 * that a start failing after it still closes it; the links' closers let what was answered already finish first.
 */
async function openLinks(
  data: AccountData,
  sessions: SessionStore,
  throttle: LoginThrottle,
  features: OpenFeatures,
  sso: SsoRuntime,
): Promise<
  Pick<
    ServerRuntime,
    'mailer' | 'mailLimit' | 'invitations' | 'passwordResets' | 'resetThrottle' | 'linkThrottle' | 'signup'
  >
> {
  const { storage, accounts, clock, logger, config } = data;
  const opened = await openMailer(config, logger);
  const mailer = features.add({
    service: opened,
    jobs: [],
    closers: [{ name: 'the mailer', close: () => opened.close() }],
  });
  const limits = { perRecipient: config.MAIL_LIMIT_PER_RECIPIENT, perOrganisation: config.MAIL_LIMIT_PER_ORGANISATION };
  const now = () => clock().getTime();
  const mailLimit = new MailLimit((await storage.loginThrottle(mailThrottleLimits(limits), now)).scoped('mail'));
  const audit = logFailures(data.audit, logger);
  const passwordResets = features.add(
    openPasswordResets({ accounts, audit, mailer, mailLimit, sessions, clock, logger }),
  );
  // Sign-ups are limited as sign-ins, counted apart.
  const signup = new SignupService({
    accounts,
    audit,
    // Its mail (a verification link, or a notice to an address that has an account) is asked for by nobody signed in.
    mailer: mailLimit.mailer(mailer, logger),
    throttle: throttle.scoped('signup'),
    clock,
    logger,
  });
  const invitations = new InvitationService({
    accounts,
    audit,
    mailer,
    mailLimit,
    billing: stripeSettings(config) !== null,
    clock,
    sso,
  });
  const links: OpenedFeature<Pick<ServerRuntime, 'invitations' | 'signup'>> = {
    service: { invitations, signup },
    jobs: [
      every('purge', PURGE_INTERVAL_MS, () => {
        for (const expiring of [invitations, signup]) {
          expiring.purgeExpired().catch((err: unknown) => logger.error({ err }, 'could not purge expired links'));
        }
      }),
    ],
    // Sign-ups answered already send their e-mail before the mailer closes.
    closers: [{ name: 'the sign-up e-mails', close: () => signup.drain() }],
  };
  return {
    ...features.add(links),
    passwordResets,
    mailer,
    mailLimit,
    resetThrottle: throttle.scoped('reset'),
    linkThrottle: (await storage.loginThrottle(linkThrottleLimits(throttle.limits), now)).scoped('link'),
  };
}
