import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DataVersions } from '../../../server/storage/postgres/data-versions';
import { connectionConfig, type Database } from '../../../server/storage/postgres/database';
import { postgresDatabases, ingestStateFixture, silentLogger } from './fixtures';
import { ingestStateDocument } from '../../../server/ingest/ingest-state-document';
import { openPostgresDocument } from '../../../server/storage/document';

const { opened } = postgresDatabases();

/** Counts the version queries DataVersions sends through `pool`, and can hold their answers back. */
function countVersionQueries(pool: pg.Pool) {
  const original = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  const counter = { count: 0, hold: null as Promise<void> | null, answered: 0 };
  (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
    if (typeof args[0] !== 'string' || !args[0].startsWith('SELECT name, version')) return original(...args);
    counter.count++;
    const hold = counter.hold;
    return original(...args).then(async (result) => {
      counter.answered++;
      if (hold) await hold;
      return result;
    });
  };
  return counter;
}

/** Counts the connections taken from `pool` for transactions (each reload and each update takes one). */
function countConnects(pool: pg.Pool) {
  const original = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  const counter = { count: 0 };
  (pool as unknown as { connect: unknown }).connect = (...args: unknown[]) => {
    // pool.query takes its connection with a callback: those are not counted.
    if (args.length === 0) counter.count++;
    return original(...args);
  };
  return counter;
}

const addRun = (d: ReturnType<typeof ingestStateFixture>) =>
  void (d.history = [ingestStateFixture().history[0]!, ...d.history]);

async function twoInstances() {
  const { url, dbs } = await opened.fresh(2);
  const [a, b] = dbs as [Database, Database];
  const writer = opened.track(await openPostgresDocument(ingestStateDocument, a));
  const reader = opened.track(await openPostgresDocument(ingestStateDocument, b));
  return { url, a, b, writer, reader };
}

describe('DataVersions.sync', () => {
  it('answers 200 concurrent calls with at most 3 version queries, and one reload', async () => {
    const { b, writer, reader } = await twoInstances();
    b.versions.register(reader);
    await writer.update(addRun);
    const queries = countVersionQueries(b.pool);
    const connects = countConnects(b.pool);

    await Promise.all(Array.from({ length: 200 }, () => b.versions.sync()));

    expect(queries.count).toBeGreaterThanOrEqual(1);
    expect(queries.count).toBeLessThanOrEqual(3);
    expect(connects.count).toBe(1);
    expect(reader.current).toEqual(writer.current);
  });

  it('does not settle for a query that started before the call: a commit made just before is seen', async () => {
    const { b, writer, reader } = await twoInstances();
    b.versions.register(reader);
    const queries = countVersionQueries(b.pool);
    let release!: () => void;
    queries.hold = new Promise<void>((resolve) => (release = resolve));

    // A first call's query has read the versions (nothing new yet) but not answered...
    const first = b.versions.sync();
    await expect.poll(() => queries.answered).toBe(1);
    queries.hold = null;
    // ...when another instance commits, and a request arrives.
    await writer.update(addRun);
    const second = b.versions.sync();
    release();
    await first;
    await second;

    expect(queries.count).toBe(2);
    expect(reader.current.history).toHaveLength(1);
    expect(reader.version).toBe(1);
  });

  it('lets 50 concurrent catch-ups of one store share one reload', async () => {
    const { b, writer, reader } = await twoInstances();
    await writer.update(addRun);
    await writer.update(addRun);
    const connects = countConnects(b.pool);

    await Promise.all(Array.from({ length: 50 }, (_, i) => reader.catchUp(1 + (i % 2))));

    expect(connects.count).toBe(1);
    expect(reader.version).toBe(2);
  });

  it('rejects when the database cannot be asked, and works again after', async () => {
    const { b, reader } = await twoInstances();
    b.versions.register(reader);
    const original = b.pool.query.bind(b.pool);
    (b.pool as unknown as { query: unknown }).query = () => Promise.reject(new Error('connection refused'));
    await expect(b.versions.sync()).rejects.toThrow('connection refused');
    (b.pool as unknown as { query: unknown }).query = original;
    await expect(b.versions.sync()).resolves.toBeUndefined();
  });
});

describe('DataVersions.listen', () => {
  /** A reader whose DataVersions polls only once a minute: what it picks up sooner came by LISTEN. */
  async function listeningReader(url: string, b: Database, applicationName: string) {
    const versions = new DataVersions({
      pool: b.pool,
      clientConfig: connectionConfig(url, applicationName),
      logger: silentLogger,
      pollIntervalMs: 60_000,
    });
    opened.track(versions);
    const reader = opened.track(await openPostgresDocument(ingestStateDocument, { pool: b.pool, versions }));
    reader.watch();
    return { versions, reader };
  }

  async function listenerPid(b: Database, applicationName: string): Promise<number | undefined> {
    const { rows } = await b.pool.query(
      "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query = 'LISTEN data_version'",
      [applicationName],
    );
    return rows[0]?.pid;
  }

  it('reloads on the notification of a commit, well within 2 s', async () => {
    const { url, b, writer } = await twoInstances();
    const queries = countVersionQueries(b.pool);
    const { reader } = await listeningReader(url, b, 'listen-test');
    // Listening, and done with the one poll that follows connecting.
    await expect.poll(() => listenerPid(b, 'listen-test')).toBeTypeOf('number');
    await expect.poll(() => queries.answered).toBe(1);
    const started = Date.now();

    await writer.update(addRun);

    await expect.poll(() => reader.version, { timeout: 2000, interval: 10 }).toBe(1);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(reader.current).toEqual(writer.current);
    expect(queries.count).toBe(1);
  });

  it('reconnects when its connection is killed, and catches up on what it missed', async () => {
    const { url, b, writer } = await twoInstances();
    const { reader } = await listeningReader(url, b, 'listen-kill');
    await expect.poll(() => listenerPid(b, 'listen-kill')).toBeTypeOf('number');
    const pid = await listenerPid(b, 'listen-kill');

    await b.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await writer.update(addRun); // possibly while nobody listens

    await expect.poll(() => reader.version, { timeout: 3000, interval: 20 }).toBe(1);
    await expect.poll(() => listenerPid(b, 'listen-kill'), { timeout: 3000 }).not.toBe(pid);
    await expect.poll(() => listenerPid(b, 'listen-kill'), { timeout: 3000 }).toBeTypeOf('number');
    await writer.update(addRun);
    await expect.poll(() => reader.version, { timeout: 2000, interval: 20 }).toBe(2);
  });

  it('polls once a second, for notifications lost on the way', async () => {
    const { a, reader } = await twoInstances();
    reader.watch();
    // A commit that announces nothing stands for a lost notification.
    const client = await a.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("UPDATE ingest_state SET history = '[]', last_attempt_at = '2026-01-01T00:00:00.000Z'");
      await client.query('ALTER TABLE data_version DISABLE TRIGGER data_version_changed');
      await client.query("UPDATE data_version SET version = version + 1 WHERE name = 'ingest_state'");
      await client.query('ALTER TABLE data_version ENABLE TRIGGER data_version_changed');
      await client.query('COMMIT');
    } finally {
      client.release();
    }

    await expect
      .poll(() => reader.current.last_attempt_at, { timeout: 2500, interval: 20 })
      .toBe('2026-01-01T00:00:00.000Z');
  });
});
