import type { AccountService } from './accounts/account-service';
import type { AlertsService } from './alerts/alerts-service';
import type { AuditLog } from './audit/audit-log';
import type { LoginThrottle, LoginThrottleLimits } from './auth/login-throttle';
import type { SignInService } from './auth/sign-in';
import type { BackgroundWork } from './background';
import type { Storage } from './backends/registry';
import type { CatchmentService } from './catchment/catchment-service';
import type { Config } from './config';
import type { DeclarationRepository } from './declarations/declaration-repository';
import type { BackendName, BackendProbe } from './health/health-routes';
import type { RefreshOptions } from './ingest/refresh';
import type { IngestService } from './ingest/service';
import type { KeyService } from './keys/key-service';
import type { TeamService } from './team/team-service';
import type { UsageService } from './usage/usage-service';
import type { Logger } from './logger';
import type { PostcodeIndex } from './postcodes/postcode-index';
import type { SlidingWindowCounter } from './rate-limit/sliding-window';
import type { BatchAllowance } from './check/batch-allowance';
import type { OriginPolicy } from './sessions/origin-policy';
import type { SessionStore } from './sessions/session-store';
import type { Database } from './storage/postgres/database';
import type { WebhookService, WebhookTuning } from './webhooks/webhook-service';
import type { InvitationService } from './invitations/invitation-service';
import type { PasswordResetService } from './invitations/password-reset-service';
import type { SignupService } from './signup/signup-service';
import type { Mailer } from './mail/mailer';
import type { MailLimit } from './mail/mail-limit';
import type { BillingService } from './billing/billing-service';
import type { SsoRuntime } from './sso/open-sso';
import type { SsoSignInRuntime } from './sso/open-sso-sign-in';

/** What the process opens: the server everything; the admin CLI the account data; the ingest CLI the ingest's. */
export type RuntimePurpose = 'server' | 'admin' | 'ingest';

/** Sessions and sign-in, as configured (see authOptionsFromConfig) or as a test sets them. */
export interface AuthSettings {
  /** SESSION_SECRET; when unset, a secret generated once and kept in DATA_DIR/session-secret (0600). */
  sessionSecret?: string;
  /** EXTENSION_ORIGINS; empty = any chrome-extension:// origin. */
  extensionOrigins?: readonly string[];
  /** PUBLIC_URL: the web origins allowed to drive the cookie session. Unset = where the server listens (HOST). */
  publicOrigins?: readonly string[];
  /** HOST, for the default of publicOrigins. */
  listenHost?: string;
  idleTimeoutMs?: number;
  absoluteTimeoutMs?: number;
  loginLimits?: Partial<LoginThrottleLimits>;
}

/** What a caller sets over the configuration: the tests' seams, each explicit, and the process's logger. */
export interface RuntimeOverrides {
  /** Default 'server'. */
  purpose?: RuntimePurpose;
  /** The one clock of the process: sessions, keys, accounts, the audit trail, the check and its rate limit read it. */
  clock?: () => Date;
  /**
   * Whose clock the Redis counters keep their windows on: 'redis' (the default: Redis TIME, one clock for every
   * instance) or 'caller' (`clock`: for a test on a fake clock; the instances must then agree on the time).
   */
  redisClock?: 'redis' | 'caller';
  /** Default: JSON lines on stdout at LOG_LEVEL. */
  logger?: Logger;
  /** The postcode index to answer from. Default: the bundled ABS correspondence, or POSTCODE_LGA_URL's. */
  postcodes?: PostcodeIndex;
  /** Where check requests are counted. Default: the storage registry's (Redis when REDIS_URL is set). */
  rateLimitCounter?: SlidingWindowCounter;
  /** Sign-in settings over the configuration's (a test's short session timeouts or login limits). */
  auth?: AuthSettings;
  /** Webhook delivery timings over the defaults (a test's short back-off). */
  webhooks?: WebhookTuning;
}

/** How a refresh reads its sources and where it writes: the same for the server's schedule and `npm run ingest`. */
export type RefreshSettings = Pick<
  RefreshOptions,
  'storage' | 'baseUrl' | 'drfaCsvUrl' | 'browser' | 'minDeclarations' | 'clock'
> & {
  fetcher: { userAgent: string };
};

/** What every process has: its configuration, DATA_DIR (created), one clock, one logger and its storage. */
export interface Runtime {
  config: Config;
  dataDir: string;
  clock: () => Date;
  logger: Logger;
  /** Every store, on the backend the configuration chose (backends/registry.ts). */
  storage: Storage;
  refreshSettings: RefreshSettings;
  /** DATABASE_URL's PostgreSQL, migrated; null when the state lives in DATA_DIR's JSON files. */
  database: Database | null;
  /** Stops what was started, then closes everything opened, in reverse order. */
  close(): Promise<void>;
}

/** The account data and its services, as the server and the admin CLI both open them. */
export interface AccountData extends Runtime {
  accounts: AccountService;
  keys: KeyService;
  declarations: DeclarationRepository;
  /** Written by the services that change state; read by `npm run admin -- audit`. */
  audit: AuditLog;
  /** See Storage.syncData: null with JSON files. */
  syncData: (() => Promise<void>) | null;
}

/** What the admin CLI works with: the account data and the team rules. */
export interface DataRuntime extends AccountData {
  /** The organisations' teams: who is a member, with which role (the server's also ends removed members' sessions). */
  team: TeamService;
}

/** Everything the HTTP application needs (createApp). */
export interface ServerRuntime extends DataRuntime {
  postcodes: PostcodeIndex;
  rateLimitCounter: SlidingWindowCounter;
  /** The rows each organisation may check in batches per Sydney day (BATCH_ROWS_PER_DAY). */
  batchAllowance: BatchAllowance;
  sessions: SessionStore;
  sessionSecret: string;
  idleTimeoutMs: number;
  absoluteTimeoutMs: number;
  origins: OriginPolicy;
  throttle: LoginThrottle;
  signIn: SignInService;
  /** Password-reset requests: sign-in's limits, counted apart (LoginThrottle.scoped). */
  resetThrottle: LoginThrottle;
  /** Links' use (invitation look-up and acceptance, password reset): sign-in's limits, counted apart. */
  linkThrottle: LoginThrottle;
  /** The one limit on the e-mails and links the service issues (mail/mail-limit.ts). */
  mailLimit: MailLimit;
  /** SMTP_URL's mailer, or one that sends nothing. */
  mailer: Mailer;
  /** Invitations to join an organisation (/api/v1/team/invitations, /api/v1/invitations). */
  invitations: InvitationService;
  /** Password-reset links (/api/v1/auth/password-reset, /api/v1/team/members/{id}/reset-link). */
  passwordResets: PasswordResetService;
  /** Self-service sign-up and e-mail verification links (/api/v1/signup). */
  signup: SignupService;
  /** Every timer and job of a serving process (background.ts); close() stops them first. */
  background: BackgroundWork;
  /** Starts all of the background work (`background.start()`) and returns the ingest schedule. */
  startBackgroundWork(): IngestService;
  /** Reachability checks of the shared backends configured, for /healthz. */
  backends: Partial<Record<BackendName, BackendProbe>>;
  /** Each subscription's catchment (PUT/GET /api/v1/catchment). */
  catchments: CatchmentService;
  /** Catchment alerts: processed after every refresh; `alerts.onAlerts(listener)` hears each committed batch. */
  alerts: AlertsService;
  /** Each subscription's webhook (PUT/GET/DELETE /api/v1/webhook) and the delivery of new alerts to it. */
  webhooks: WebhookService;
  /** API-key requests counted per key and day (GET /api/v1/usage). */
  usage: UsageService;
  /** Billing with Stripe (/api/v1/billing), or operator mode's view only (stripeSettings null). */
  billing: BillingService;
  /** Single sign-on: its directory (what sign-in reads), its settings (/api/v1/organisation/sso), the departures. */
  sso: SsoRuntime;
  /** Signing in by single sign-on: OpenID Connect's and SAML's protocols, their flows, the completion, the limits. */
  ssoSignIn: SsoSignInRuntime;
}
