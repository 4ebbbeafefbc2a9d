import type session from 'express-session';
import type { Pool, QueryConfig } from 'pg';
import type { Column } from '../storage/postgres/rows';
import { isSessionExpired, sessionKey, type SessionPolicy, type SessionTimes } from './session-store';
import { SharedSessionStore, type LoadedSession } from './shared-session-store';
import './session-types';

export interface PostgresSessionStoreOptions {
  /** The service's pool (DATABASE_URL), with the schema of migrations/0001_initial.sql; not closed by the store. */
  pool: Pool;
  policy: SessionPolicy;
  /**
   * How long one query may take (waiting for a pooled connection included) before the request is answered 503
   * `session_unavailable`. Default 2000 ms.
   */
  queryTimeoutMs?: number;
}

/** The columns of `sessions` (for the JSON import, which fills the table from sessions.json). */
export const SESSION_COLUMNS: readonly Column[] = [
  { name: 'sid_hash', type: 'text' },
  { name: 'account_id', type: 'text' },
  { name: 'created_at', type: 'timestamptz' },
  { name: 'last_seen_at', type: 'timestamptz' },
  { name: 'cookie', type: 'jsonb' },
];

interface SessionRow {
  account_id: string;
  created_at: Date | string;
  last_seen_at: Date | string;
  cookie: Record<string, unknown>;
}

/**
 * express-session's Store over PostgreSQL's `sessions` table (migrations/0001_initial.sql), shared by every instance,
 * with the policy of FileSessionStore:
 *
 * - A row is keyed by the SHA-256 of the session id (`sid_hash`, hex) and holds the account id, the sign-in time
 *   (`created_at`), the time the idle deadline was last written (`last_seen_at`) and express-session's cookie
 *   settings: no usable session id, no email.
 * - Expiry is decided on this server's clock, passed to every query: `get` refuses a session idle for
 *   `idleTimeoutMs` or signed in `absoluteTimeoutMs` ago; `purge` deletes such rows.
 * - `touch` writes `last_seen_at` at most once per touch interval: the load tells it when the last write was
 *   (SessionData.lastSeenAt), so a request within the interval costs no query; the UPDATE itself changes only a live
 *   row whose last write is older than the interval (never one deleted meanwhile by a sign-out).
 * - `set` keeps the sign-in time of an existing row of the same account (saving never extends the absolute deadline).
 * - `destroyAllFor` deletes by `account_id` (indexed). Rows also go with their account (ON DELETE CASCADE).
 *
 * When the database cannot be reached or does not answer within `queryTimeoutMs`, every operation fails with
 * sessionUnavailable() (503 `session_unavailable`) — except a touch, which is reported as an 'error' event
 * (SharedSessionStore).
 */
export class PostgresSessionStore extends SharedSessionStore {
  readonly backend = 'postgres';
  private readonly pool: Pool;
  private readonly queryTimeoutMs: number;

  constructor(options: PostgresSessionStoreOptions) {
    const queryTimeoutMs = options.queryTimeoutMs ?? 2000;
    super(options.policy, queryTimeoutMs);
    this.pool = options.pool;
    this.queryTimeoutMs = queryTimeoutMs;
  }

  protected async save(sid: string, accountId: string, data: session.SessionData): Promise<void> {
    await this.query(
      `INSERT INTO sessions (sid_hash, account_id, created_at, last_seen_at, cookie)
       VALUES ($1, $2, $3, $3, $4::jsonb)
       ON CONFLICT (sid_hash) DO UPDATE SET
         created_at = CASE WHEN sessions.account_id = EXCLUDED.account_id
                           THEN sessions.created_at ELSE EXCLUDED.created_at END,
         account_id = EXCLUDED.account_id,
         last_seen_at = EXCLUDED.last_seen_at,
         cookie = EXCLUDED.cookie`,
      [sessionKey(sid), accountId, new Date(this.now()), JSON.stringify(data.cookie ?? {})],
    );
  }

  /** Only a live row whose last write is a touch interval old; a deleted or expired one stays so. */
  protected async refresh(sid: string, now: number): Promise<void> {
    const [idleCutoff, absoluteCutoff] = this.cutoffs(now);
    await this.query(
      `UPDATE sessions SET last_seen_at = $2
       WHERE sid_hash = $1 AND last_seen_at <= $3 AND last_seen_at > $4 AND created_at > $5`,
      [sessionKey(sid), new Date(now), new Date(now - this.touchIntervalMs), idleCutoff, absoluteCutoff],
    );
  }

  protected async remove(sid: string): Promise<void> {
    await this.query('DELETE FROM sessions WHERE sid_hash = $1', [sessionKey(sid)]);
  }

  protected async count(): Promise<number> {
    const [idleCutoff, absoluteCutoff] = this.cutoffs(this.now());
    const result = await this.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sessions WHERE last_seen_at > $1 AND created_at > $2',
      [idleCutoff, absoluteCutoff],
    );
    return result.rows[0]?.n ?? 0;
  }

  protected async removeAll(): Promise<void> {
    await this.query('DELETE FROM sessions', []);
  }

  /** Deletes every expired row; returns how many. */
  async purge(): Promise<number> {
    const [idleCutoff, absoluteCutoff] = this.cutoffs(this.now());
    const result = await this.query('DELETE FROM sessions WHERE last_seen_at <= $1 OR created_at <= $2', [
      idleCutoff,
      absoluteCutoff,
    ]);
    return result.rowCount ?? 0;
  }

  async destroyAllFor(accountId: string): Promise<number> {
    const result = await this.query('DELETE FROM sessions WHERE account_id = $1', [accountId]);
    return result.rowCount ?? 0;
  }

  /** The pool is the caller's to close. */
  async close(): Promise<void> {}

  /** The row of a session that is live on this server's clock; undefined when there is none. */
  protected async read(sid: string): Promise<LoadedSession | undefined> {
    const now = this.now();
    const [idleCutoff, absoluteCutoff] = this.cutoffs(now);
    const result = await this.query<SessionRow>(
      `SELECT account_id, created_at, last_seen_at, cookie FROM sessions
       WHERE sid_hash = $1 AND last_seen_at > $2 AND created_at > $3`,
      [sessionKey(sid), idleCutoff, absoluteCutoff],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    const times = rowTimes(row);
    // The SQL has decided already; checked again with the very function the other stores use.
    return isSessionExpired(times, this.policy, now)
      ? undefined
      : { accountId: row.account_id, cookie: row.cookie, times };
  }

  /** A session is expired when last_seen_at <= the first or created_at <= the second. */
  private cutoffs(now: number): [Date, Date] {
    return [new Date(now - this.policy.idleTimeoutMs), new Date(now - this.policy.absoluteTimeoutMs)];
  }

  /** A query within the timeout; any failure becomes sessionUnavailable(). */
  private async query<R extends object = object>(text: string, values: unknown[]) {
    // query_timeout (read by pg per query, not in its types) also gives up on the connection's side.
    const config: QueryConfig & { query_timeout: number } = { text, values, query_timeout: this.queryTimeoutMs };
    return this.within(() => this.pool.query<R>(config));
  }
}

function rowTimes(row: SessionRow): SessionTimes {
  return { createdAt: epochMs(row.created_at), lastSeenAt: epochMs(row.last_seen_at) };
}

/** The service's pool reads a timestamptz as ISO text (PG_TYPES); a plain node-postgres pool as a Date. */
function epochMs(time: Date | string): number {
  return time instanceof Date ? time.getTime() : Date.parse(time);
}
