import { alignedTable } from '../text-table';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { isCalendarDate } from '../../shared/domain/dates';
import { lastAccessDay, paidUntil } from '../../shared/domain/paid-until';
import { RESET_HOURS } from '../../shared/api/invitations';
import { Role } from '../../shared/api/team';
import { openPasswordResets } from '../invitations/open-password-resets';
import { openMailer } from '../mail/open-mailer';
import { isPlainText } from '../../shared/domain/text-hygiene';
import { AccountError, isSubscriptionActive, normaliseEmail } from '../accounts/account-service';
import type { Member } from '../accounts/account-records';
import { OPERATOR } from '../team/team-service';
import type { AuditActor } from '../audit/audit-log';
import { formatAuditEvents } from '../audit/format-audit';
import { fatalLine, loadProcessConfig, type Config } from '../config';
import { openBilling } from '../billing/open-billing';
import { ContractError } from '../contract-error';
import type { ApiErrorCode } from '../../shared/api/errors';
import { createLogger } from '../logger';
import { openRuntime, type DataRuntime } from '../runtime';
import { importDataDir } from '../importers';
import { formatImportReport } from '../storage/import/import-report';
import { hearLostConnections } from '../storage/postgres/database';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-account --email E --password P [--organisation NAME]
                                               create an account, the owner of a new organisation (named NAME,
                                               else after the email) with an inactive subscription (prints its id)
  add-member --organisation-of E --email E2 --password P --role owner|admin|member
                                               add an account to the organisation E belongs to (prints its id)
  set-role --email E --role owner|admin|member change a member's role (an organisation keeps an owner)
  remove-member --email E                      remove a member and their account (their sessions end)
  list-members --organisation-of E             the members of the organisation E belongs to
  set-subscription --email E --status active|inactive [--expires YYYY-MM-DD|none] [--rate-limit N]
                                               set the Clinic-Wide Access subscription of E's organisation
  create-key --email E                         create the API key of E's organisation (printed once)
  reset-link --email E                         a single-use link that sets E's password (printed; e-mailed too when
                                               SMTP_URL is set): for an owner nobody on the team can help
  list-accounts                                list accounts, organisations, roles, subscriptions and keys
  billing-sync                                 re-read every subscription from Stripe and apply it (after a missed
                                               webhook); needs STRIPE_SECRET_KEY, STRIPE_PRICE_ID, STRIPE_WEBHOOK_SECRET
  audit --email E                              the account's audit trail: sign-ins, failed sign-ins, key and
                                               subscription changes (never a key or a password)
  audit --organisation-of E                    the trail of E's organisation: every member's events, the team's,
                                               catchment saves and webhook changes (with the webhook's host), and
                                               Stripe's billing changes (with their event ids)
  migrate-json-to-postgres                     copy DATA_DIR's JSON files into the database at DATABASE_URL (creating
                                               its tables); keeps what the database already has, so running it again
                                               adds only what is new; all or nothing, but for a record it
                                               cannot hold (a NUL in its text, an address that cannot be
                                               normalised): reported and left out with what depends on it

Works on DATA_DIR (default ./data), the same directory as the server; a running server sees changes within 2 s.`;

/** A mistake in how the command was called: usage is printed and the exit code is 2. */
class UsageError extends Error {}

type Options = Record<string, string | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** Every change made here is audited as the operator's. */
const ADMIN: AuditActor = { source: 'admin' };

/** The membership of the account with `email`. */
function membershipOf(data: DataRuntime, email: string): Member {
  const account = data.accounts.findByEmail(email);
  if (!account) throw new AccountError('account_not_found', `No account for ${normaliseEmail(email)}`);
  const member = data.accounts.membershipOf(account.id);
  if (!member) throw new AccountError('organisation_not_found', `${account.email} is in no organisation`);
  return member;
}

function roleOption(options: Options): Role {
  const role = Role.safeParse(required(options, 'role'));
  if (!role.success) throw new UsageError('--role must be owner, admin or member');
  return role.data;
}

const commands: Record<string, (data: DataRuntime, options: Options) => Promise<string>> = {
  async 'billing-sync'(data, options) {
    if (Object.keys(options).length > 0) throw new UsageError('billing-sync takes no options');
    const { config, accounts, clock, logger } = data;
    // Opened as the server opens it; its renewal job is the server's to run.
    const { service: billing } = await openBilling({
      config,
      accounts,
      audit: data.audit,
      clock,
      logger,
    });
    return (await billing.sync(ADMIN)).join('\n');
  },

  async 'create-account'(data, options) {
    // The rule the API's schemas apply to a practice's name (shared/domain/text-hygiene.ts): one line, no NUL.
    if (options.organisation !== undefined && !isPlainText(options.organisation)) {
      throw new UsageError('--organisation must be one line of text, without control characters');
    }
    const account = await data.accounts.createAccount(required(options, 'email'), required(options, 'password'), {
      by: ADMIN,
      organisationName: options.organisation,
    });
    return account.id;
  },

  async 'add-member'(data, options) {
    const organisationId = membershipOf(data, required(options, 'organisation-of')).organisation_id;
    const role = roleOption(options);
    return data.team.add(OPERATOR, organisationId, required(options, 'email'), required(options, 'password'), role);
  },

  async 'set-role'(data, options) {
    const email = required(options, 'email');
    const member = membershipOf(data, email);
    const role = roleOption(options);
    await data.team.changeRole(OPERATOR, member.organisation_id, member.account_id, role);
    return `${normaliseEmail(email)}: ${role}`;
  },

  async 'remove-member'(data, options) {
    const email = required(options, 'email');
    const member = membershipOf(data, email);
    await data.team.remove(OPERATOR, member.organisation_id, member.account_id);
    return `${normaliseEmail(email)} removed`;
  },

  async 'list-members'(data, options) {
    const { organisation, members } = data.team.view(
      membershipOf(data, required(options, 'organisation-of')).organisation_id,
    );
    const rows = members.map((m) => [m.email, m.role, m.joined_at, m.account_id]);
    return `${organisation.name} (${organisation.id})\n${alignedTable(['EMAIL', 'ROLE', 'JOINED', 'ID'], rows)}`;
  },

  async 'set-subscription'(data, options) {
    const email = required(options, 'email');
    const status = options.status;
    if (status !== undefined && status !== 'active' && status !== 'inactive') {
      throw new UsageError('--status must be active or inactive');
    }
    let expires: string | null | undefined;
    if (options.expires !== undefined) {
      if (options.expires === 'none') expires = null;
      else if (isCalendarDate(options.expires)) expires = options.expires;
      else throw new UsageError('--expires must be a date YYYY-MM-DD or "none"');
    }
    let rateLimit: number | undefined;
    if (options['rate-limit'] !== undefined) {
      rateLimit = Number(options['rate-limit']);
      if (!/^[0-9]+$/.test(options['rate-limit']) || rateLimit < 1 || rateLimit > 1_000_000) {
        throw new UsageError('--rate-limit must be a whole number from 1 to 1000000');
      }
    }
    if (status === undefined && expires === undefined && rateLimit === undefined) {
      throw new UsageError('give at least one of --status, --expires, --rate-limit');
    }
    const sub = await data.accounts.setSubscription(email, { status, expires, rateLimit }, { by: ADMIN });
    return `${email}: ${sub.status}, ${paidUntil(sub.expires_at)}, ${sub.rate_limit} requests/minute`;
  },

  async 'create-key'(data, options) {
    const account = data.accounts.findByEmail(required(options, 'email'));
    if (!account) throw new AccountError('account_not_found', `No account for ${options.email}`);
    // The same KeyService rule as POST /api/v1/keys/generate: active subscription, no active key, one locked write.
    const key = await data.keys.generate(account.id, data.clock(), { by: ADMIN });
    return key.api_key;
  },

  async 'reset-link'(data, options) {
    const email = required(options, 'email');
    const member = membershipOf(data, email);
    const { config, storage, accounts, clock, logger } = data;
    const mailer = await openMailer(config, logger);
    try {
      // Opened as the server opens it, without the mail limit: the operator's link is not limited.
      const { service: resets } = openPasswordResets({
        accounts,
        audit: data.audit,
        mailer,
        // The service's own session store, as its reset would end the account's sessions there (issuing ends none).
        sessions: await storage.sessions({
          idleTimeoutMs: config.SESSION_IDLE_MINUTES * 60_000,
          absoluteTimeoutMs: config.SESSION_ABSOLUTE_HOURS * 3_600_000,
          clock,
        }),
        clock,
        logger,
      });
      // Where browsers reach the service: PUBLIC_URL (required in production), else where it listens.
      const origin = config.PUBLIC_URL?.[0] ?? `http://${config.HOST}:${config.PORT}`;
      const issued = await resets.issue(OPERATOR, member.organisation_id, member.account_id, origin);
      const sent = issued.emailed ? `; also e-mailed to ${normaliseEmail(email)}` : '';
      return `${issued.link}\nIt works once, within ${RESET_HOURS} hours${sent}.`;
    } finally {
      await mailer.close();
    }
  },

  async audit(data, options) {
    const organisationOf = options['organisation-of'];
    if (organisationOf !== undefined) {
      const member = membershipOf(data, organisationOf);
      const events = await data.audit.read({ organisationId: member.organisation_id });
      return formatAuditEvents(events, `the organisation of ${normaliseEmail(organisationOf)}`);
    }
    const email = normaliseEmail(required(options, 'email'));
    const account = data.accounts.findByEmail(email);
    const events = await data.audit.read({ email, accountId: account?.id });
    return formatAuditEvents(events, email);
  },

  async 'list-accounts'(data) {
    const now = data.clock();
    const rows = data.accounts.list().map(({ account, subscription, membership }) => {
      const key = subscription && data.keys.currentKey(subscription.id);
      const organisation = membership && data.accounts.organisation(membership.organisation_id);
      return [
        account.email,
        account.id,
        organisation?.name ?? '-',
        membership?.role ?? '-',
        isSubscriptionActive(subscription, now) ? 'active' : 'inactive',
        (subscription?.expires_at && lastAccessDay(subscription.expires_at)) || '-',
        String(subscription?.rate_limit ?? '-'),
        key ? `${key.status} ${key.prefix}…` : 'none',
        key?.last_used_at ?? '-',
      ];
    });
    if (rows.length === 0) {
      return 'No accounts yet. Create one with: npm run admin -- create-account --email E --password P';
    }
    const header = [
      'EMAIL',
      'ID',
      'ORGANISATION',
      'ROLE',
      'SUBSCRIPTION',
      'PAID UNTIL',
      'LIMIT/MIN',
      'KEY',
      'LAST USED',
    ];
    return alignedTable(header, rows);
  },
};

/**
 * Commands that do not work on the service's data as a DataRuntime opens it (DATA_DIR, or the database when
 * DATABASE_URL is set) but on the configuration itself: run before any runtime is opened.
 */
const configCommands: Record<string, (config: Config, options: Options) => Promise<string>> = {
  async 'migrate-json-to-postgres'(config, options) {
    if (Object.keys(options).length > 0) throw new UsageError('migrate-json-to-postgres takes no options');
    if (!config.DATABASE_URL) {
      throw new Error('DATABASE_URL is not set: set it to the postgres:// URL of the database to copy DATA_DIR into');
    }
    // Standard output is the report: the migration's log lines go to standard error (warnings only).
    const logger = createLogger('warn', process.stderr);
    const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: 2, connectionTimeoutMillis: 10_000 });
    // An idle connection the server drops is no reason to crash; the query that needs it fails and says so.
    pool.on('error', () => undefined);
    hearLostConnections(pool);
    try {
      return formatImportReport(await importDataDir(pool, config.DATA_DIR, { logger }));
    } finally {
      await pool.end();
    }
  },
};

/**
 * What the operator does next, after the contract's message (shared/api/errors.ts), for the refusals a command meets
 * and whose message alone does not say it.
 */
const NEXT_STEP: Partial<Record<ApiErrorCode, string>> = {
  last_owner: 'Make another member an owner first.',
  billing_not_configured:
    'This server is in operator mode: set STRIPE_SECRET_KEY, STRIPE_PRICE_ID and STRIPE_WEBHOOK_SECRET to sync with Stripe.',
  // The contract's "nothing was changed" is the HTTP call's; billing-sync applies each subscription as it reads it.
  billing_unavailable: 'billing-sync stopped there: what it had read before is applied; run it again.',
  key_exists: 'Revoke or regenerate it from the options page.',
  subscription_inactive: 'Activate it with set-subscription first.',
};

/**
 * A refusal's lines for the operator: the contract's message (shared/api/errors.ts, or the error's own words where the
 * contract words it more precisely), then what to do next when NEXT_STEP says it.
 */
function refusalLines(err: ContractError): string {
  const next = NEXT_STEP[err.code];
  return `Error: ${err.message}\n${next ? `${next}\n` : ''}`;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return command ? 0 : 2;
  }
  const run = commands[command];
  const runOnConfig = configCommands[command];
  if (!run && !runOnConfig) {
    process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
    return 2;
  }
  let options: Options;
  try {
    options = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        status: { type: 'string' },
        expires: { type: 'string' },
        'rate-limit': { type: 'string' },
        organisation: { type: 'string' },
        'organisation-of': { type: 'string' },
        role: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values as Options;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }

  if (!run) return runConfigCommand(runOnConfig!, options);

  // Standard output is the command's answer: anything logged goes to standard error.
  const data = await openRuntime(loadProcessConfig(), {
    purpose: 'admin',
    logger: createLogger('warn', process.stderr),
  });
  try {
    process.stdout.write((await run(data, options)) + '\n');
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof AccountError) {
      // An account's refusal names the address or the rule it broke: its own words.
      process.stderr.write(`Error: ${err.message}\n`);
      return 1;
    }
    if (!(err instanceof ContractError)) throw err;
    process.stderr.write(refusalLines(err));
    return 1;
  } finally {
    await data.close();
  }
}

async function runConfigCommand(
  run: (config: Config, options: Options) => Promise<string>,
  options: Options,
): Promise<number> {
  try {
    process.stdout.write((await run(loadProcessConfig(), options)) + '\n');
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    // One line, whatever went wrong (a bad configuration, a file, the database): no stack trace.
    process.stderr.write(fatalLine(err, 'Error').replace(/\s*\n\s*/g, ' ') + '\n');
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(fatalLine(err, 'Error') + '\n');
    process.exit(1);
  },
);
