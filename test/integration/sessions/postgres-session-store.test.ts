import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../../server/sessions/postgres-session-store';
import { sessionKey } from '../../../server/sessions/session-store';
import { PG_TYPES } from '../../../server/storage/postgres/database';
import { migrateDatabase } from '../../../server/storage/postgres/migrate';
import { usePostgresServer } from '../../helpers/postgres-per-file';
import { storeCalls } from '../../helpers/session-store-calls';
import {
  ABSOLUTE_MS,
  fakeClock,
  IDLE_MS,
  MINUTE,
  policyOn,
  sessionStoreContract,
} from '../../helpers/session-store-contract';

// A real PostgreSQL on loopback for the file, one migrated database; the sessions table is emptied between tests.
const postgres = usePostgresServer();
let url: string;
let inspect: pg.Pool;

const silent = { info: () => undefined, warn: () => undefined };

beforeAll(async () => {
  url = await postgres.createDatabase('sessions');
  inspect = postgres.pool(url);
  await migrateDatabase(inspect, { logger: silent as never });
});

afterEach(async () => {
  await inspect.query('DELETE FROM sessions');
});

async function ensureAccount(id: string): Promise<void> {
  await inspect.query(
    `INSERT INTO accounts (id, email, password_hash, created_at) VALUES ($1, $2, 'x', now()) ON CONFLICT DO NOTHING`,
    [id, `${id}@example.test`],
  );
}

/**
 * Each store instance on a pool of its own, as two processes would be, set up as the service sets up its pool
 * (timestamps read as ISO text, PG_TYPES).
 */
const openStore = async (clock: () => Date) =>
  new PostgresSessionStore({
    pool: postgres.pool(url, { types: PG_TYPES }),
    policy: policyOn(clock),
  });

describe('PostgresSessionStore: the session store contract', () => {
  sessionStoreContract(() => ({
    open: openStore,
    async dump() {
      const { rows } = await inspect.query('SELECT * FROM sessions ORDER BY sid_hash');
      return JSON.stringify(rows, null, 1);
    },
    async lastSeen(sid) {
      const { rows } = await inspect.query<{ last_seen_at: Date }>(
        'SELECT last_seen_at FROM sessions WHERE sid_hash = $1',
        [sessionKey(sid)],
      );
      return rows[0]?.last_seen_at.toISOString();
    },
    ensureAccount,
  }));
});

describe('PostgresSessionStore in its table', () => {
  it('keeps one row per session: the SHA-256 of its id, the account id, the times and the cookie settings', async () => {
    await ensureAccount('acc-9');
    const time = fakeClock();
    const store = await openStore(time.clock);
    await storeCalls(store).set('raw-id', { accountId: 'acc-9', email: 'someone@x.test' });
    const { rows } = await inspect.query('SELECT * FROM sessions');
    expect(rows).toEqual([
      {
        sid_hash: sessionKey('raw-id'),
        account_id: 'acc-9',
        created_at: time.clock(),
        last_seen_at: time.clock(),
        cookie: { originalMaxAge: 1000, path: '/api/v1', httpOnly: true },
      },
    ]);
  });

  it('purge deletes the rows past either deadline and counts them', async () => {
    await ensureAccount('acc');
    const time = fakeClock();
    const store = await openStore(time.clock);
    const calls = storeCalls(store);
    await calls.set('old', { accountId: 'acc' });
    time.advance(20 * MINUTE);
    await calls.set('recent', { accountId: 'acc' });
    time.advance(15 * MINUTE); // old: 35 idle minutes; recent: 15
    expect(await store.purge()).toBe(1);
    expect(await store.purge()).toBe(0);
    // Kept busy past its absolute deadline (12 h after its sign-in at minute 20), then purged too.
    for (let minute = 35; minute < 20 + 12 * 60; minute += 20) {
      await calls.touch('recent', (await calls.get('recent'))!);
      time.advance(20 * MINUTE);
    }
    const { rows: left } = await inspect.query<{ last_seen_at: Date }>('SELECT last_seen_at FROM sessions');
    expect(time.now() - left[0]!.last_seen_at.getTime()).toBe(20 * MINUTE); // not idle: over by the absolute limit
    expect(await store.purge()).toBe(1);
    const { rows } = await inspect.query('SELECT count(*)::int AS n FROM sessions');
    expect(rows[0].n).toBe(0);
  });

  it('refuses a row past its deadline on the server clock even before purge', async () => {
    await ensureAccount('acc');
    const time = fakeClock();
    const store = await openStore(time.clock);
    await storeCalls(store).set('sid', { accountId: 'acc' });
    time.advance(IDLE_MS);
    expect(await storeCalls(store).get('sid')).toBeNull();
    const { rows } = await inspect.query('SELECT count(*)::int AS n FROM sessions');
    expect(rows[0].n).toBe(1);
    time.advance(ABSOLUTE_MS);
    expect(await store.expiresAt('sid')).toBeUndefined();
  });

  it('fails with session_unavailable (503) promptly when the database cannot be reached', async () => {
    const dead = new URL(url);
    dead.port = '1';
    const store = new PostgresSessionStore({
      pool: postgres.pool(dead.toString(), { connectionTimeoutMillis: 500 }),
      policy: policyOn(fakeClock().clock),
    });
    const errors: unknown[] = [];
    store.on('error', (err: unknown) => errors.push(err));
    const calls = storeCalls(store);
    const started = Date.now();
    const failure = await calls.get('sid').catch((err: unknown) => err);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(failure).toMatchObject({ code: 'session_unavailable' });
    expect(failure).toMatchObject({ status: 503, code: 'session_unavailable' });
    await expect(calls.set('sid', { accountId: 'acc' })).rejects.toMatchObject({ code: 'session_unavailable' });
    await expect(calls.destroy('sid')).rejects.toMatchObject({ code: 'session_unavailable' });
    await expect(store.purge()).rejects.toMatchObject({ code: 'session_unavailable' });
    await expect(store.destroyAllFor('acc')).rejects.toMatchObject({ code: 'session_unavailable' });
    await calls.touch('sid'); // reported, not thrown
    expect(errors).toHaveLength(1);
  });

  it('answers within the query timeout when a query hangs', async () => {
    await ensureAccount('acc');
    const store = new PostgresSessionStore({
      pool: postgres.pool(url),
      policy: policyOn(fakeClock().clock),
      queryTimeoutMs: 300,
    });
    const calls = storeCalls(store);
    await calls.set('sid', { accountId: 'acc' });
    // Another transaction holds the row: the write waits on its lock.
    const blocker = await inspect.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM sessions WHERE sid_hash = $1 FOR UPDATE', [sessionKey('sid')]);
      const started = Date.now();
      await expect(calls.destroy('sid')).rejects.toMatchObject({ code: 'session_unavailable' });
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    // The store answers again at once. (The timed-out DELETE itself may still run on the server once the lock is
    // gone: only a statement_timeout on the pool's connections makes the server give up too.)
    await calls.set('other', { accountId: 'acc' });
    expect(await calls.get('other')).toMatchObject({ accountId: 'acc' });
  });
});
