import { hash } from 'node:crypto';
import type { Pool, QueryConfig } from 'pg';
import { storageError } from '../storage/postgres/unavailable';
import { parseSsoFlow } from './sso-flow-json';
import type { OwnedSsoFlowStore, SsoFlow } from './sso-flow-store';

export interface PostgresSsoFlowStoreOptions {
  /** The service's pool (DATABASE_URL), with migrations/0020_sso_flows.sql; not closed by the store. */
  pool: Pool;
  /** The server's clock: a row's time is decided on it, as the sessions' are. */
  now: () => number;
  /** Per query, before the sign-in is answered 503 storage_unavailable. Default 2000 ms. */
  queryTimeoutMs?: number;
}

/**
 * The flows in PostgreSQL (without Redis), shared by every instance: `take` is DELETE … RETURNING (of two callbacks
 * with the same state, one deletes the row), `firstUse` an INSERT that only an absent or expired key lets through.
 * Rows past their time are never given back, and each `put` deletes them (indexed by expires_at).
 */
export class PostgresSsoFlowStore implements OwnedSsoFlowStore {
  private readonly pool: Pool;
  private readonly now: () => number;
  private readonly queryTimeoutMs: number;

  constructor(options: PostgresSsoFlowStoreOptions) {
    this.pool = options.pool;
    this.now = options.now;
    this.queryTimeoutMs = options.queryTimeoutMs ?? 2000;
  }

  async put(id: string, flow: SsoFlow, ttlMs: number): Promise<void> {
    const now = new Date(this.now());
    await this.query('DELETE FROM sso_flows WHERE expires_at <= $1', [now]);
    await this.query(
      `INSERT INTO sso_flows (id, flow, expires_at) VALUES ($1, $2::jsonb, $3)
       ON CONFLICT (id) DO UPDATE SET flow = EXCLUDED.flow, expires_at = EXCLUDED.expires_at`,
      [flowKey(id), JSON.stringify(flow), new Date(now.getTime() + ttlMs)],
    );
  }

  async take(id: string): Promise<SsoFlow | undefined> {
    // An expired row is deleted all the same, and gives nothing back.
    const result = await this.query<{ flow: unknown; live: boolean }>(
      'DELETE FROM sso_flows WHERE id = $1 RETURNING flow, expires_at > $2 AS live',
      [flowKey(id), new Date(this.now())],
    );
    const row = result.rows[0];
    return row?.live ? parseSsoFlow(row.flow) : undefined;
  }

  /**
   * An expired key is as good as absent: the conflicting row is taken over only when its time has passed (the WHERE of
   * DO UPDATE), so of concurrent first uses exactly one gets a row back.
   */
  async firstUse(key: string, ttlMs: number): Promise<boolean> {
    const now = new Date(this.now());
    await this.query('DELETE FROM sso_once WHERE expires_at <= $1', [now]);
    const result = await this.query(
      `INSERT INTO sso_once (key, expires_at) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE sso_once.expires_at <= $3
       RETURNING key`,
      [hash('sha256', key, 'hex'), new Date(now.getTime() + ttlMs), now],
    );
    return result.rowCount === 1;
  }

  async close(): Promise<void> {}

  private async query<R extends object = object>(text: string, values: unknown[]) {
    // query_timeout (read by pg per query, not in its types) gives up on the connection's side too.
    const config: QueryConfig & { query_timeout: number } = { text, values, query_timeout: this.queryTimeoutMs };
    try {
      return await this.pool.query<R>(config);
    } catch (err) {
      throw storageError(err);
    }
  }
}

/** The row's id: the state came in a URL, so the table never holds it as it is. */
function flowKey(id: string): string {
  return hash('sha256', id, 'hex');
}
