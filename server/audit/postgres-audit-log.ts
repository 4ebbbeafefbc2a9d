import type pg from 'pg';
import type { AlongsideWrite } from '../storage/document-store';
import { nullableTimestampOut, timestampOut, type Queryable } from '../storage/postgres/rows';
import { storageError } from '../storage/postgres/unavailable';
import { auditEvent, redactKeys, type AuditEvent, type AuditFilter, type AuditInput, type AuditLog } from './audit-log';

interface AuditRow {
  at: unknown;
  event: AuditEvent['event'];
  source: AuditEvent['source'];
  account_id: string | null;
  email: string | null;
  organisation_id: string | null;
  member_email: string | null;
  role: AuditEvent['role'] | null;
  ip: string | null;
  key_prefix: string | null;
  reason: string | null;
  subscription_status: 'active' | 'inactive' | null;
  subscription_expires_at: unknown;
  subscription_rate_limit: number | null;
  stripe_event_id: string | null;
  webhook_host: string | null;
  postcode_count: number | null;
  previous_name: string | null;
  organisation_name: string | null;
  sso_provider: AuditEvent['sso_provider'] | null;
}

/** A row as the event JsonLinesAuditLog writes (auditEvent: the optional fields only when set, in the same order). */
function toEvent(r: AuditRow): AuditEvent {
  return auditEvent({
    ...r,
    at: timestampOut(r.at),
    subscription: r.subscription_status && {
      status: r.subscription_status,
      expires_at: nullableTimestampOut(r.subscription_expires_at),
      rate_limit: r.subscription_rate_limit!,
    },
  });
}

/** The columns of `audit_events` an event fills (the id is the table's): written here, and by the JSON import. */
export const AUDIT_COLUMNS = [
  'at',
  'event',
  'source',
  'account_id',
  'email',
  'ip',
  'key_prefix',
  'reason',
  'subscription_status',
  'subscription_expires_at',
  'subscription_rate_limit',
  'organisation_id',
  'member_email',
  'role',
  'stripe_event_id',
  'webhook_host',
  'postcode_count',
  'previous_name',
  'organisation_name',
  'sso_provider',
] as const;

const COLUMNS = AUDIT_COLUMNS.join(', ');

/** Inserts `input` as one row (anything that looks like a whole key cut to its prefix, as JsonLinesAuditLog does). */
async function insertEvent(client: Queryable, input: AuditInput, clock: () => Date): Promise<void> {
  const sub = input.subscription;
  await client.query(
    `INSERT INTO audit_events (${COLUMNS})
     VALUES ($1::timestamptz, $2, $3, $4, $5, $6, $7, $8, $9, $10::timestamptz, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
    [
      (input.at ?? clock()).toISOString(),
      input.event,
      input.source,
      redactKeys(input.account_id),
      redactKeys(input.email),
      redactKeys(input.ip ?? null),
      redactKeys(input.key_prefix ?? null),
      redactKeys(input.reason ?? null),
      sub?.status ?? null,
      sub?.expires_at ?? null,
      sub?.rate_limit ?? null,
      input.organisation_id ?? null,
      redactKeys(input.member_email ?? null),
      input.role ?? null,
      input.stripe_event_id ?? null,
      redactKeys(input.webhook_host ?? null),
      input.postcode_count ?? null,
      input.previous_name ?? null,
      input.organisation_name ?? null,
      input.sso_provider ?? null,
    ],
  );
}

/**
 * The audit trail in PostgreSQL (DATABASE_URL): the `audit_events` table, append-only (its triggers refuse any
 * change), shared by every instance and the admin CLI, so that `npm run admin -- audit` shows what every instance
 * recorded. Events are read oldest first in the order they were written (by id), with the filter of
 * JsonLinesAuditLog: an event concerns the email (as normalised) or the account id.
 */
export class PostgresAuditLog implements AuditLog {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  record(input: AuditInput): Promise<void> {
    const write = insertEvent(this.pool, input, this.clock).then(
      () => undefined,
      (err: unknown) => {
        throw storageError(err);
      },
    );
    this.pending.add(write);
    const forget = () => this.pending.delete(write);
    write.then(forget, forget);
    return write;
  }

  alongside(events: AuditInput[]): AlongsideWrite {
    // In the document's transaction (its client): the events are committed with the change, or neither is.
    return {
      write: async (transaction = this.pool) => {
        try {
          for (const event of events) await insertEvent(transaction, event, this.clock);
        } catch (err) {
          throw storageError(err);
        }
      },
    };
  }

  async read(filter: AuditFilter = {}): Promise<AuditEvent[]> {
    // What this process recorded before asking is in the answer.
    await this.settled();
    const email = filter.email?.trim().toLowerCase();
    const accountId = filter.accountId;
    const conditions: string[] = [];
    const params: string[] = [];
    if (filter.organisationId !== undefined) {
      params.push(filter.organisationId);
      conditions.push(`organisation_id = $${params.length}`);
    } else if (email !== undefined) {
      params.push(email);
      // Equal as stored (JsonLinesAuditLog compares exactly); lower() lets the index on lower(email) find them.
      conditions.push(
        `(lower(email) = $${params.length} AND email = $${params.length})`,
        `member_email = $${params.length}`,
      );
    }
    if (accountId !== undefined && filter.organisationId === undefined) {
      params.push(accountId);
      conditions.push(`account_id = $${params.length}`);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' OR ')}` : '';
    // The database gone: 503 storage_unavailable, as every read of it answers.
    const { rows } = await this.pool
      .query<AuditRow>(
        filter.newest === undefined
          ? `SELECT ${COLUMNS} FROM audit_events ${where} ORDER BY id`
          : `SELECT ${COLUMNS} FROM (SELECT id, ${COLUMNS} FROM audit_events ${where} ORDER BY id DESC LIMIT ${Math.max(0, Math.floor(filter.newest))}) newest ORDER BY id`,
        params,
      )
      .catch((err: unknown) => {
        throw storageError(err);
      });
    return rows.map(toEvent);
  }

  async close(): Promise<void> {
    await this.settled();
  }

  private async settled(): Promise<void> {
    await Promise.all([...this.pending].map((p) => p.catch(() => undefined)));
  }
}
