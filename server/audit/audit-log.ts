import { createReadStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { keyPrefix } from '../../shared/domain/api-key-format';
import { SsoProvider } from '../../shared/api/sso';
import { Role } from '../../shared/api/team';
import type { Logger } from '../logger';
import type { AlongsideWrite } from '../storage/document-store';

export const AuditEventType = z.enum([
  'account_created',
  'login',
  'login_failed',
  'logout',
  'key_generated',
  'key_regenerated',
  'key_revoked',
  'subscription_changed',
  'member_added',
  'member_role_changed',
  'member_removed',
  'invitation_created',
  'invitation_resent',
  'invitation_revoked',
  'invitation_accepted',
  'password_reset_requested',
  'password_reset',
  'email_verified',
  'catchment_saved',
  'webhook_set',
  'webhook_replaced',
  'webhook_removed',
  'webhook_tested',
  'organisation_renamed',
  // Single sign-on (issue #38).
  'sso_settings_changed',
  'sso_settings_removed',
  'sso_sign_in',
  'sso_sign_in_refused',
  'sso_joined',
  'sso_linked',
  'break_glass_sign_in',
]);
export type AuditEventType = z.infer<typeof AuditEventType>;

/** Who caused the event: a signed-in person over HTTP, an operator with the admin CLI, or Stripe (a billing event). */
export const AuditSource = z.enum(['web', 'admin', 'stripe']);
export type AuditSource = z.infer<typeof AuditSource>;

/** An event as the audit trails hold it (and the JSON import checks audit.jsonl's lines by). */
export const AuditEvent = z.object({
  at: z.string(),
  event: AuditEventType,
  source: AuditSource,
  /** Who acted (or whose sign-in it was): null for a failed login with an unknown email, and an operator's change. */
  account_id: z.string().nullable(),
  email: z.string().nullable(),
  /** The organisation concerned: what its Activity page lists. */
  organisation_id: z.string().optional(),
  /** A team event's subject: the member added, changed or removed; the person invited; whose password is reset. */
  member_email: z.string().optional(),
  /** A team event's role: given (added, changed, invited) or held (removed, reset). */
  role: Role.optional(),
  /** Client address (web events). */
  ip: z.string().optional(),
  /** `sk_live_` + 4 characters: enough to tell keys apart, useless to an attacker. Never the key. */
  key_prefix: z.string().optional(),
  /** Why a login failed (`invalid_credentials`). */
  reason: z.string().optional(),
  subscription: z
    .object({ status: z.enum(['active', 'inactive']), expires_at: z.string().nullable(), rate_limit: z.number().int() })
    .optional(),
  /** The Stripe event (evt_…) a billing change came from. */
  stripe_event_id: z.string().optional(),
  /**
   * A webhook event: the host (and port) of the URL the alerts now go to (set, replaced), went to (removed) or the test
   * went to. Never the rest of the URL, whose path or query may hold the receiver's token, nor the signing secret.
   */
  webhook_host: z.string().optional(),
  /** A catchment save: how many postcodes the catchment now has. */
  postcode_count: z.number().int().nonnegative().optional(),
  /** An organisation's rename: the name it had, and the name it has since. */
  previous_name: z.string().optional(),
  organisation_name: z.string().optional(),
  /** A single sign-on event: the provider set up, removed, or signed in (or refused) with. */
  sso_provider: SsoProvider.optional(),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

export type AuditInput = Omit<AuditEvent, 'at'> & { at?: Date };

/**
 * Who is changing state, as the audit trail records it: a person over HTTP (with the client address) or an operator
 * with the admin CLI. The services that change accounts, subscriptions and keys take one and record the event.
 */
export type AuditActor = { source: 'web'; ip: string } | { source: 'admin' } | { source: 'stripe' };

/** Where the services that change state write their audit events. */
export interface AuditRecorder {
  record(input: AuditInput): Promise<void>;
  /**
   * `events` as a write that cannot be dropped: given to a document's update, written with it (in its transaction on
   * PostgreSQL), and its failure refuses the update. Without it (a stand-in), mustRecord records them one by one.
   */
  alongside?(events: AuditInput[]): AlongsideWrite;
}

/**
 * `events` as a write that is never logged and dropped: with a document's update (`store.update(change, () =>
 * mustRecord(audit, event))`) both are written or neither; on its own (`.write()`), its failure is the caller's, who
 * refuses what it was recording. An acknowledged action has its audit event.
 */
export function mustRecord(audit: AuditRecorder, ...events: AuditInput[]): AlongsideWrite {
  return (
    audit.alongside?.(events) ?? {
      async write() {
        for (const event of events) await audit.record(event);
      },
    }
  );
}

/**
 * Which events to read: those naming `email` (as actor or as member) or `accountId`; or, with `organisationId`,
 * those of that organisation. No filter: every event.
 */
export interface AuditFilter {
  email?: string;
  accountId?: string;
  organisationId?: string;
  /** Only the newest this many of them (still oldest first): the Activity page's `limit`. */
  newest?: number;
}

/** Whether `event` is one `filter` asks for (the rule every audit trail reads by). */
export function auditMatches(
  event: AuditEvent,
  filter: AuditFilter,
  email = filter.email?.trim().toLowerCase(),
): boolean {
  if (filter.organisationId !== undefined) return event.organisation_id === filter.organisationId;
  if (email === undefined && filter.accountId === undefined) return true;
  return (
    (email !== undefined && (event.email === email || event.member_email === email)) ||
    (filter.accountId !== undefined && event.account_id === filter.accountId)
  );
}

/** The audit trail: written by the services, read by `npm run admin -- audit` and the console's Activity page. */
export interface AuditLog extends AuditRecorder {
  /** Events concerning `email` or `accountId` (or, alone, of `organisationId`), oldest first. */
  read(filter?: AuditFilter): Promise<AuditEvent[]>;
  /** Waits for pending writes. */
  close(): Promise<void>;
}

// What looks like a whole key: `sk_live_` and at least 12 more characters, so that an already-cut prefix is left alone.
const RAW_KEY = /sk_live_[0-9A-Za-z]{12,}/g;

/**
 * `text` with anything that looks like a whole key cut to its prefix (keyPrefix) and `…`: what every audit trail does
 * to what it stores (JsonLinesAuditLog to each line, PostgresAuditLog to each text field, the JSON import to what it
 * copies), whatever a caller passes. null and undefined are given back as they are.
 */
export function redactKeys<V extends string | null | undefined>(text: V): V {
  return (typeof text === 'string' ? text.replace(RAW_KEY, (key) => `${keyPrefix(key)}…`) : text) as V;
}

/**
 * An event as the audit trails give it back: the fields in this order, the optional ones only when set (neither
 * undefined nor null), the subscription with its three fields only.
 */
export function auditEvent(fields: {
  at: string;
  event: AuditEventType;
  source: AuditSource;
  account_id: string | null;
  email: string | null;
  organisation_id?: string | null;
  member_email?: string | null;
  role?: Role | null;
  ip?: string | null;
  key_prefix?: string | null;
  reason?: string | null;
  subscription?: AuditEvent['subscription'] | null;
  stripe_event_id?: string | null;
  webhook_host?: string | null;
  postcode_count?: number | null;
  previous_name?: string | null;
  organisation_name?: string | null;
  sso_provider?: SsoProvider | null;
}): AuditEvent {
  return {
    at: fields.at,
    event: fields.event,
    source: fields.source,
    account_id: fields.account_id,
    email: fields.email,
    ...(fields.organisation_id != null && { organisation_id: fields.organisation_id }),
    ...(fields.member_email != null && { member_email: fields.member_email }),
    ...(fields.role != null && { role: fields.role }),
    ...(fields.ip != null && { ip: fields.ip }),
    ...(fields.key_prefix != null && { key_prefix: fields.key_prefix }),
    ...(fields.reason != null && { reason: fields.reason }),
    ...(fields.subscription != null && {
      subscription: {
        status: fields.subscription.status,
        expires_at: fields.subscription.expires_at,
        rate_limit: fields.subscription.rate_limit,
      },
    }),
    ...(fields.stripe_event_id != null && { stripe_event_id: fields.stripe_event_id }),
    ...(fields.webhook_host != null && { webhook_host: fields.webhook_host }),
    ...(fields.postcode_count != null && { postcode_count: fields.postcode_count }),
    ...(fields.previous_name != null && { previous_name: fields.previous_name }),
    ...(fields.organisation_name != null && { organisation_name: fields.organisation_name }),
    ...(fields.sso_provider != null && { sso_provider: fields.sso_provider }),
  };
}

/**
 * The audit trail as a file: one JSON object per line in `DATA_DIR/audit.jsonl`, append-only.
 *
 * Why JSON lines rather than a JsonStore: an audit trail only grows and is never edited. An append with O_APPEND costs
 * the same whatever the file's size and lands at the end even when the server and the admin CLI write at once, while
 * a JsonStore would hold the whole history in memory and rewrite all of it for every event. Each line is written with
 * one write(2) and fdatasync'd before the call returns; a torn last line (power cut mid-write) is skipped by readers.
 *
 * Only the fields above are ever written — no password, no key, no session id.
 */
export class JsonLinesAuditLog implements AuditLog {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  static inDataDir(dataDir: string, clock?: () => Date): JsonLinesAuditLog {
    return new JsonLinesAuditLog(path.join(dataDir, 'audit.jsonl'), clock);
  }

  alongside(events: AuditInput[]): AlongsideWrite {
    // Another file than the document's: appended on its own, before the document is written (JsonStore.update).
    return { write: async () => void (await Promise.all(events.map((event) => this.record(event)))) };
  }

  record(input: AuditInput): Promise<void> {
    const event = auditEvent({ ...input, at: (input.at ?? this.clock()).toISOString() });
    const line = redactKeys(JSON.stringify(event)) + '\n';
    const run = this.queue.then(() => this.append(line));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async read(filter: AuditFilter = {}): Promise<AuditEvent[]> {
    await this.queue;
    const email = filter.email?.trim().toLowerCase();
    const events: AuditEvent[] = [];
    let stream;
    try {
      stream = createReadStream(this.file, { encoding: 'utf8' });
      await new Promise<void>((resolve, reject) => {
        stream!.once('open', () => resolve());
        stream!.once('error', reject);
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
      if (line.trim() === '') continue;
      let event: AuditEvent;
      try {
        event = JSON.parse(line) as AuditEvent;
      } catch {
        continue; // a line torn by a crash mid-write
      }
      if (!auditMatches(event, filter, email)) continue;
      events.push(event);
      // Only the newest are kept while reading: a years-long trail is never held whole for a page of it.
      if (filter.newest !== undefined && events.length > 2 * filter.newest) {
        events.splice(0, events.length - filter.newest);
      }
    }
    return filter.newest === undefined ? events : events.slice(-filter.newest);
  }

  async close(): Promise<void> {
    await this.queue;
  }

  private async append(line: string): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const handle = await open(this.file, 'a', 0o600);
    try {
      await handle.write(line);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }
}

/**
 * The server's recorder for events recorded after their change (a new key): a failed audit write is logged and does
 * not turn the response into an error. What must not be dropped goes through mustRecord, which this passes on to the
 * log itself, failures included. (The admin CLI records with the log itself: a failed write fails the command, for
 * the operator to see.)
 */
export function logFailures(audit: AuditRecorder, logger: Pick<Logger, 'error'>): AuditRecorder {
  return {
    alongside: (events) => mustRecord(audit, ...events),
    async record(input) {
      try {
        await audit.record(input);
      } catch (err) {
        logger.error({ err, event: input.event }, 'could not write the audit log');
      }
    },
  };
}
