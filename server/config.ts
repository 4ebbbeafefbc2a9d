import { existsSync } from 'node:fs';
import { Cron } from 'croner';
import { z } from 'zod';
import { DEFAULT_BATCH_ROWS_PER_DAY } from '../shared/api/check-batch';
import { EMAIL_SHAPE } from '../shared/api/auth';
import { hasLoneSurrogate } from '../shared/domain/text-hygiene';
import { parseExtensionOrigins, parsePublicUrls } from './sessions/origin-policy';
import { DRFA_PACKAGE_URL } from './ingest/drfa-source';
import { DEFAULT_MIN_DECLARATIONS } from './ingest/plausibility';

/** Empty variables (`PORT=`) mean "use the default", as in most twelve-factor tools. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema);

function isCron(expression: string): boolean {
  try {
    new Cron(expression, { paused: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Express's `trust proxy`: "true"/"false", a hop count, or addresses/subnets. Unset = trust no proxy, so a
 * client cannot pick its own rate-limit bucket with a forged X-Forwarded-For.
 */
function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^[0-9]+$/.test(value)) return Number(value);
  return value;
}

/** A string read by a parser that throws with a message a person can act on (the message becomes the issue). */
const parsedBy = <T>(parse: (value: string) => T) =>
  z.string().transform((value, ctx) => {
    try {
      return parse(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });

/** MAIL_FROM: `noreply@clinic.example` or `Practice name <noreply@clinic.example>`, on one line. */
function parseMailFrom(value: string): string {
  const trimmed = value.trim();
  const match = /^(?:[^<>\r\n]*<([^<>\s]+)>|([^<>\s]+))$/.exec(trimmed);
  const address = match?.[1] ?? match?.[2];
  if (!address || !EMAIL_SHAPE.test(address)) {
    throw new Error('must be an email address, optionally with a name: "Practice <noreply@clinic.example>"');
  }
  return trimmed;
}

/**
 * One line of text a person reads: no control characters or line breaks (they would break the line, and a terminal's
 * escape sequences could hide in them) and no lone surrogate (not text: it cannot be encoded as UTF-8).
 */
const textLine = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !/[\p{Cc}\p{Zl}\p{Zp}]/u.test(v), 'must be one line of text, without control characters')
    .refine((v) => !hasLoneSurrogate(v), 'must be text (it holds a lone surrogate)');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

export const ConfigSchema = z.object({
  NODE_ENV: optional(z.enum(['development', 'production', 'test']).default('development')),
  PORT: optional(z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535).default(3000)),
  HOST: optional(z.string().default('127.0.0.1')),
  DATA_DIR: optional(z.string().default('./data')),
  SESSION_SECRET: optional(z.string().min(32, 'must have at least 32 characters').optional()),
  /** Session lifetimes: idle (no request for this long) and absolute (since sign-in). */
  SESSION_IDLE_MINUTES: optional(
    z.coerce
      .number({ error: 'must be a number of minutes' })
      .int()
      .min(1)
      .max(7 * 24 * 60)
      .default(30),
  ),
  SESSION_ABSOLUTE_HOURS: optional(
    z.coerce
      .number({ error: 'must be a number of hours' })
      .int()
      .min(1)
      .max(24 * 30)
      .default(12),
  ),
  /** Extension origins allowed to use the cookie session (comma-separated); unset = any chrome-extension:// or moz-extension:// origin. */
  EXTENSION_ORIGINS: optional(parsedBy(parseExtensionOrigins).optional()),
  /**
   * Where browsers reach this service (comma-separated http(s) origins): the only web origins the cookie session's
   * Origin check accepts. Required in production; unset elsewhere = where it listens (127.0.0.1, localhost, HOST).
   */
  PUBLIC_URL: optional(parsedBy(parsePublicUrls).optional()),
  INGEST_SCHEDULE: optional(
    z.string().refine(isCron, 'must be a cron expression such as "0 3 * * *"').default('0 3 * * *'),
  ),
  DISASTERASSIST_BASE_URL: optional(httpUrl.default('https://www.disasterassist.gov.au')),
  /** A CKAN package URL (its CSV resource is then read) or the CSV's own URL; `none` = run without the CSV. */
  DRFA_CSV_URL: optional(
    z
      .union([z.literal('none'), httpUrl], { error: 'must be an http(s) URL or "none"' })
      .default(DRFA_PACKAGE_URL)
      .transform((v) => (v === 'none' ? null : v)),
  ),
  /** A refresh that reads fewer declarations from the list than this is refused (the live list holds 760–900). */
  INGEST_MIN_DECLARATIONS: optional(
    z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(0)
      .default(DEFAULT_MIN_DECLARATIONS),
  ),
  /** The Chromium that reads a list drawn by script; unset = Debian's (/usr/lib/chromium/chromium, /usr/bin/chromium). */
  CHROMIUM_PATH: optional(z.string().optional()),
  POSTCODE_LGA_URL: optional(z.string().optional()),
  /** An email or URL added to the ingest's User-Agent so the sites' operators can reach whoever runs it. */
  INGEST_CONTACT: optional(z.string().max(200).optional()),
  TRUST_PROXY: optional(z.string().transform(parseTrustProxy).default(false)),
  /**
   * Where the check endpoint's rate limit is counted when several instances serve (redis:// or rediss://); unset =
   * in this process. When Redis cannot be reached, checks answer 503 rate_limit_unavailable until it is back.
   */
  REDIS_URL: optional(
    z.url({ protocol: /^rediss?$/, hostname: /./, error: 'must be a redis:// or rediss:// URL' }).optional(),
  ),
  /**
   * Put in front of every Redis key this service writes (rate-limit buckets, sessions, login counts), so that one
   * Redis can serve several deployments. Default `dte:`.
   */
  REDIS_KEY_PREFIX: optional(
    z
      .string()
      .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'must be 1 to 64 letters, digits or : _ . -')
      .default('dte:'),
  ),
  /**
   * PostgreSQL (postgres:// or postgresql://) for accounts, subscriptions, keys, the audit trail, declarations and
   * the ingest state, shared by every instance; unset = the JSON files in DATA_DIR.
   */
  DATABASE_URL: optional(
    z
      .url({ protocol: /^postgres(ql)?$/, hostname: /./, error: 'must be a postgres:// or postgresql:// URL' })
      .optional(),
  ),
  /**
   * Webhooks may be delivered to loopback, private, link-local and other non-public addresses (tests, or a receiver
   * on the clinic's own network). Default false: such URLs are refused, and so is a host name resolving to one.
   */
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: optional(
    z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .default('false')
      .transform((v) => v === 'true'),
  ),
  /**
   * Where invitation and password-reset e-mails are sent through (smtp://user:pass@host:587, STARTTLS when the server
   * offers it; smtps:// for TLS from the start); unset = no e-mail, the links are only shown to whoever asks.
   */
  SMTP_URL: optional(
    z.url({ protocol: /^smtps?$/, hostname: /./, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  ),
  /** The From of those e-mails; required with SMTP_URL. */
  MAIL_FROM: optional(parsedBy(parseMailFrom).optional()),
  /**
   * How many e-mails and links (invitations, resends, reset and verification links, sign-up notices) the service
   * issues per hour: to any one address, and on behalf of any one organisation (server/mail/mail-limit.ts). Beyond,
   * a team action is answered 429 with Retry-After and a request nobody signed in for sends nothing (its answer is
   * the same either way).
   */
  MAIL_LIMIT_PER_RECIPIENT: optional(
    z.coerce.number({ error: 'must be a number of e-mails' }).int('must be a whole number').min(1).max(1000).default(5),
  ),
  MAIL_LIMIT_PER_ORGANISATION: optional(
    z.coerce
      .number({ error: 'must be a number of e-mails' })
      .int('must be a whole number')
      .min(1)
      .max(10_000)
      .default(30),
  ),
  /**
   * The rows an organisation may check in batches (POST /api/v1/check-batch, the console's list page) per Sydney day;
   * beyond, a batch is refused 429 with Retry-After until midnight.
   */
  BATCH_ROWS_PER_DAY: optional(
    z.coerce
      .number({ error: 'must be a number of rows' })
      .int('must be a whole number')
      .min(1)
      .max(10_000_000)
      .default(DEFAULT_BATCH_ROWS_PER_DAY),
  ),
  /**
   * The built console (`npm run build:console`'s output) served at /console/; unset = .output/console beside the
   * bundled server, or under the repository when the server runs from source.
   */
  CONSOLE_DIR: optional(z.string().optional()),
  /**
   * Billing with Stripe: all three set = subscriptions are paid for through Stripe Checkout and kept in step by
   * Stripe's webhook; none set = operator mode (the admin CLI sets subscriptions). Secret key: sk_live_… / sk_test_…
   * or a restricted key (rk_…); price: the recurring price of the plan (price_…); webhook secret: whsec_….
   */
  STRIPE_SECRET_KEY: optional(
    z
      .string()
      .regex(/^(sk|rk)_(live|test)_[A-Za-z0-9]+$/, 'must be a Stripe secret or restricted key (sk_… or rk_…)')
      .optional(),
  ),
  STRIPE_PRICE_ID: optional(
    z
      .string()
      .regex(/^price_[A-Za-z0-9]+$/, 'must be a Stripe price id (price_…)')
      .optional(),
  ),
  STRIPE_WEBHOOK_SECRET: optional(
    z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]+$/, "must be a Stripe webhook endpoint's signing secret (whsec_…)")
      .optional(),
  ),
  /** Where the Stripe client sends its requests (a proxy, or a local stand-in in tests); default Stripe's own API. */
  STRIPE_API_BASE: optional(httpUrl.default('https://api.stripe.com')),
  /** Days a subscription whose renewal payment failed (Stripe's past_due) keeps access while Stripe retries. */
  BILLING_GRACE_DAYS: optional(
    z.coerce.number({ error: 'must be a number of days' }).int('must be a whole number').min(0).max(60).default(3),
  ),
  /**
   * Self-service sign-up (POST /api/v1/signup and the console's page): on or off. Default: on with billing (STRIPE_*
   * set), off in operator mode, where the operator creates accounts (and activates subscriptions if left on).
   */
  SIGNUP: optional(z.enum(['on', 'off'], { error: 'must be on or off' }).optional()),
  /**
   * Who runs this service, for practices to contact: a name and an e-mail, phone or URL, separated by commas
   * ("Clinic IT Services, help@clinicit.example, 02 5550 1234"). Shown on Billing in operator mode, when a password
   * cannot be reset by e-mail and to a sole owner who cannot sign in; unset = those pages say what to do in words.
   */
  OPERATOR_CONTACT: optional(textLine(200).optional()),
  /**
   * Single sign-on (issue #38). Microsoft Entra ID: the operator's one multi-tenant app registration (its application
   * ID and a client secret); each organisation names its own tenant. Both set, or neither (no Microsoft sign-in).
   */
  SSO_MICROSOFT_CLIENT_ID: optional(textLine(200).optional()),
  SSO_MICROSOFT_CLIENT_SECRET: optional(textLine(2000).optional()),
  /** Where Microsoft's issuers live ({authority}/{tenant}/v2.0): a stand-in in tests, as STRIPE_API_BASE is. */
  SSO_MICROSOFT_AUTHORITY: optional(httpUrl.default('https://login.microsoftonline.com')),
  /** Google Workspace: the operator's one OAuth client; each organisation names its Workspace domain (`hd`). */
  SSO_GOOGLE_CLIENT_ID: optional(textLine(200).optional()),
  SSO_GOOGLE_CLIENT_SECRET: optional(textLine(2000).optional()),
  /** Google's issuer (its discovery document): a stand-in in tests. */
  SSO_GOOGLE_ISSUER: optional(httpUrl.default('https://accounts.google.com')),
  /**
   * The key that encrypts organisations' OpenID Connect client secrets at rest (AES-256-GCM): 32 bytes, base64 (for
   * example `openssl rand -base64 32`). Unset = an organisation cannot save a client secret (Microsoft, Google and
   * SAML still work). Every instance needs the same key.
   */
  SSO_ENCRYPTION_KEY: optional(
    z
      .string()
      .refine(
        (v) => /^[A-Za-z0-9+/]{43}=$/.test(v) && Buffer.from(v, 'base64').length === 32,
        'must be 32 bytes in base64 (openssl rand -base64 32)',
      )
      .optional(),
  ),
  LOG_LEVEL: optional(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {}

/** Variables whose values may hold a password: never echoed in a configuration error. */
const SECRET_VARIABLES = new Set([
  'SESSION_SECRET',
  'REDIS_URL',
  'DATABASE_URL',
  'SMTP_URL',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'SSO_MICROSOFT_CLIENT_SECRET',
  'SSO_GOOGLE_CLIENT_SECRET',
  'SSO_ENCRYPTION_KEY',
]);

/** The variables billing needs, all or none. */
const STRIPE_VARIABLES = ['STRIPE_SECRET_KEY', 'STRIPE_PRICE_ID', 'STRIPE_WEBHOOK_SECRET'] as const;

/** Stripe's settings when billing is configured (all of STRIPE_VARIABLES set), else null: operator mode. */
export function stripeSettings(config: Config): StripeSettings | null {
  const { STRIPE_SECRET_KEY, STRIPE_PRICE_ID, STRIPE_WEBHOOK_SECRET } = config;
  if (!STRIPE_SECRET_KEY || !STRIPE_PRICE_ID || !STRIPE_WEBHOOK_SECRET) return null;
  return {
    secretKey: STRIPE_SECRET_KEY,
    priceId: STRIPE_PRICE_ID,
    webhookSecret: STRIPE_WEBHOOK_SECRET,
    apiBase: config.STRIPE_API_BASE,
    graceDays: config.BILLING_GRACE_DAYS,
  };
}

export interface StripeSettings {
  secretKey: string;
  priceId: string;
  webhookSecret: string;
  /** STRIPE_API_BASE. */
  apiBase: string;
  /** BILLING_GRACE_DAYS. */
  graceDays: number;
}

/**
 * Whether this instance shares its state with others: its documents in PostgreSQL (DATABASE_URL) or its counters and
 * sessions in Redis (REDIS_URL). Decided here, once: the storage registry, the heap sizing and the session secret's
 * rule all ask this.
 */
export const sharedInstance = (config: Pick<Config, 'DATABASE_URL' | 'REDIS_URL'>): boolean =>
  Boolean(config.DATABASE_URL || config.REDIS_URL);

/** Whether self-service sign-up is on: SIGNUP, or by default on exactly when billing is configured. */
export const signupEnabled = (config: Config): boolean =>
  config.SIGNUP ? config.SIGNUP === 'on' : stripeSettings(config) !== null;

/** Reads the configuration; a bad value throws a ConfigError whose message is one line naming every problem. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (parsed.success) {
    if (parsed.data.SMTP_URL && !parsed.data.MAIL_FROM) {
      throw new ConfigError('Invalid configuration: MAIL_FROM is required when SMTP_URL is set');
    }
    for (const [id, secret] of [
      ['SSO_MICROSOFT_CLIENT_ID', 'SSO_MICROSOFT_CLIENT_SECRET'],
      ['SSO_GOOGLE_CLIENT_ID', 'SSO_GOOGLE_CLIENT_SECRET'],
    ] as const) {
      if (Boolean(parsed.data[id]) !== Boolean(parsed.data[secret])) {
        throw new ConfigError(`Invalid configuration: ${id} and ${secret} are set together or not at all`);
      }
    }
    const stripeSet = STRIPE_VARIABLES.filter((name) => parsed.data[name]);
    if (stripeSet.length > 0 && stripeSet.length < STRIPE_VARIABLES.length) {
      const missing = STRIPE_VARIABLES.filter((name) => !parsed.data[name]);
      throw new ConfigError(
        `Invalid configuration: billing needs ${STRIPE_VARIABLES.join(', ')} together (missing: ${missing.join(', ')})`,
      );
    }
    if (parsed.data.NODE_ENV === 'production') {
      // Behind a proxy, the address it listens on is not where browsers reach it: the Origin check needs PUBLIC_URL.
      const missing = (['SESSION_SECRET', 'PUBLIC_URL'] as const).filter((name) => !parsed.data[name]);
      if (missing.length > 0) {
        throw new ConfigError(
          `Invalid configuration: ${missing.map((name) => `${name} is required when NODE_ENV=production`).join('; ')}`,
        );
      }
    }
    return parsed.data;
  }
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? 'environment');
    const got = env[name];
    // JSON-quoted so that a value with a line break still gives one line.
    return `${name} ${issue.message}${got === undefined || SECRET_VARIABLES.has(name) ? '' : ` (got ${JSON.stringify(got)})`}`;
  });
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}

/** The configuration of this process: its environment, with a `.env` file in the working directory filled in. */
export function loadProcessConfig(): Config {
  // loadEnvFile never overrides a variable the environment already sets.
  if (existsSync('.env')) process.loadEnvFile('.env');
  return loadConfig(process.env);
}

/** The one line a process prints when it cannot start or run: no stack trace for something a person can fix. */
export function fatalLine(err: unknown, prefix: string): string {
  return err instanceof ConfigError ? err.message : `${prefix}: ${err instanceof Error ? err.message : String(err)}`;
}
