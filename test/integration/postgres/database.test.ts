import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../server/logger';
import { advisoryLockKey, tryAdvisoryLock } from '../../../server/storage/postgres/advisory-lock';
import { openDatabase, type Database } from '../../../server/storage/postgres/database';
import { loadMigrations, MIGRATION_LOCK_KEY, SchemaTooNewError } from '../../../server/storage/postgres/migrate';
import { postgresDatabases } from './fixtures';

const { postgres, opened } = postgresDatabases();

function capturingLogger() {
  const lines: { level: string; msg: string }[] = [];
  const log = (level: string) => (fields: unknown, msg?: string) =>
    void lines.push({ level, msg: typeof fields === 'string' ? fields : (msg ?? '') });
  const logger = { info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') };
  return { lines, logger: logger as unknown as Logger };
}

describe('openDatabase', () => {
  it('migrates the schema, answers ping, and stops answering once closed', async () => {
    const url = await postgres.createDatabase('open_1');
    const db = await openDatabase(url, { logger: capturingLogger().logger });
    const known = (await loadMigrations()).length;
    expect((await db.pool.query('SELECT max(version)::int AS v FROM schema_migrations')).rows[0].v).toBe(known);
    expect(await db.ping()).toBe(true);
    await db.close();
    await db.close(); // twice is fine
    expect(await db.ping()).toBe(false);
  });

  it('gives timestamptz back as ISO text and dates as written, whatever the session time zone', async () => {
    const { dbs } = await opened.fresh(1);
    const client = await dbs[0]!.pool.connect();
    try {
      for (const zone of ['UTC', 'Australia/Sydney', 'America/St_Johns']) {
        await client.query(`SET TimeZone = '${zone}'`);
        const { rows } = await client.query(
          "SELECT '2026-01-02T03:04:05.678Z'::timestamptz AS t, '2024-02-29'::date AS d, 12345678901234::bigint AS n",
        );
        expect(rows[0]).toEqual({ t: '2026-01-02T03:04:05.678Z', d: '2024-02-29', n: '12345678901234' });
      }
    } finally {
      client.release();
    }
  });

  it('refuses a database migrated by a newer release with SchemaTooNewError, unchanged', async () => {
    const { url, dbs } = await opened.fresh(1);
    const known = (await loadMigrations()).length;
    await dbs[0]!.pool.query("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, 'future', 'x')", [
      known + 1,
    ]);

    const failure = openDatabase(url, { logger: capturingLogger().logger });

    await expect(failure).rejects.toBeInstanceOf(SchemaTooNewError);
    await expect(failure).rejects.toMatchObject({ databaseVersion: known + 1, knownVersion: known });
  });

  it('fails at once when the database cannot be reached', async () => {
    const { logger } = capturingLogger();
    const started = Date.now();
    await expect(
      openDatabase(`postgresql://postgres@127.0.0.1:${postgres.server.port}/no_such_database`, { logger }),
    ).rejects.toThrow(/no_such_database/);
    await expect(openDatabase('postgresql://postgres@127.0.0.1:1/x', { logger })).rejects.toThrow(/ECONNREFUSED/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('survives the server dropping its idle connections', async () => {
    const url = await postgres.createDatabase('open_idle');
    const { lines, logger } = capturingLogger();
    const db = opened.track(await openDatabase(url, { logger, applicationName: 'idle-test' }));
    await Promise.all([db.pool.query('SELECT 1'), db.pool.query('SELECT 1'), db.pool.query('SELECT 1')]);
    const idle = db.pool.idleCount;
    expect(idle).toBeGreaterThan(0);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'idle-test'");
    } finally {
      await admin.end();
    }
    // Each dropped connection is reported and left out of the pool; the next query opens a new one.
    await expect.poll(() => lines.filter((l) => l.msg.includes('idle database connection')).length).toBe(idle);
    expect(db.pool.idleCount).toBe(0);
    expect(await db.ping()).toBe(true);
  });
});

describe('tryAdvisoryLock', () => {
  it('is held by one instance at a time, and free again once released', async () => {
    const { dbs } = await opened.fresh(2);
    const [a, b] = dbs as [Database, Database];

    const held = await tryAdvisoryLock(a.pool, 'ingest');
    expect(held).not.toBeNull();
    expect(await tryAdvisoryLock(b.pool, 'ingest')).toBeNull();
    // Not re-entrant through the pool either: another connection of the same instance is refused too.
    expect(await tryAdvisoryLock(a.pool, 'ingest')).toBeNull();
    // Another name is another lock.
    const other = await tryAdvisoryLock(b.pool, 'something-else');
    expect(other).not.toBeNull();
    await other!.release();

    await held!.release();
    await held!.release(); // twice is fine
    const next = await tryAdvisoryLock(b.pool, 'ingest');
    expect(next).not.toBeNull();
    await next!.release();
    const { rows } = await a.pool.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'");
    expect(rows[0].n).toBe(0);
  });

  it('is freed when the holding connection dies (a killed instance)', async () => {
    const { dbs } = await opened.fresh(2);
    const [a, b] = dbs as [Database, Database];
    const held = await tryAdvisoryLock(a.pool, 'ingest');
    expect(held).not.toBeNull();
    const { rows } = await b.pool.query(
      `SELECT pid FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(rows).toHaveLength(1);
    expect(await tryAdvisoryLock(b.pool, 'ingest')).toBeNull();

    await b.pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);

    let taken: Awaited<ReturnType<typeof tryAdvisoryLock>> = null;
    await expect.poll(async () => (taken ??= await tryAdvisoryLock(b.pool, 'ingest')) !== null).toBe(true);
    await taken!.release();
    // Releasing the lost lock is harmless, and the instance that held it still works.
    await held!.release();
    expect(await a.ping()).toBe(true);
  });

  it('derives its keys from names as migrate.ts derives the migration lock', () => {
    expect(advisoryLockKey('schema_migrations')).toBe(MIGRATION_LOCK_KEY);
    expect(advisoryLockKey('ingest')).not.toBe(advisoryLockKey('ingest2'));
    expect(advisoryLockKey('ingest')).toMatch(/^-?\d+$/);
  });
});
