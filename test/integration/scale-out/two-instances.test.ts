import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { DEFAULT_BATCH_ROWS_PER_DAY } from '../../../shared/api/check-batch';
import { sydneyToday } from '../../../shared/domain/dates';
import { fixtureDeclarations } from '../../fixtures/declarations';
import { tryAdvisoryLock } from '../../../server/storage/postgres/advisory-lock';
import { FAST_CLI_ARGS, runIngest } from '../../fixtures/ingest/cli';
import { scenario } from '../../fixtures/ingest/scenario';
import { startMockSite } from '../../fixtures/ingest/site';
import { startPostgres, type PostgresServer } from '../../helpers/postgres-server';
import { startRedisServer, type TestRedisServer } from '../../helpers/redis-server';
import { runAdminWith } from '../../helpers/run-cli';
import { startServerProcess, type ServerProcess } from '../../helpers/spawn-server';
import { tempDir } from '../../helpers/temp-dir';
import { checkBatchOf, checkPostcode, openSharedData, rowsLeftToday, seedAccount } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { json, SessionClient } from '../auth/session-client';

/**
 * Two `npm start` instances (the real entry point, each its own process and DATA_DIR) on one PostgreSQL and one
 * Redis, as behind a load balancer: they must behave as one service.
 */
describe('two instances on PostgreSQL and Redis', () => {
  let postgres: PostgresServer;
  let redis: TestRedisServer;
  let env: Record<string, string>;
  const instances: { server: ServerProcess; url: string }[] = [];
  let a: { server: ServerProcess; url: string };
  let b: { server: ServerProcess; url: string };

  const start = async () => {
    const started = await startServerProcess({ ...env, DATA_DIR: await tempDir('dte-instance-') });
    instances.push(started);
    return started;
  };

  /** The data as the admin CLI opens it, in this process: for seeding accounts and declarations. */
  async function withData<T>(work: (data: Awaited<ReturnType<typeof openData>>) => Promise<T>): Promise<T> {
    const data = await openData();
    try {
      return await work(data);
    } finally {
      await data.close();
    }
  }
  const openData = () => openSharedData(env);

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedisServer()]);
    env = {
      DATABASE_URL: await postgres.createDatabase('two_instances'),
      REDIS_URL: redis.url,
      SESSION_SECRET: 'a shared session secret of at least 32 characters',
    };
    // Fresh data, so neither instance starts a refresh of its own (there is no site to reach).
    await withData(async (data) => {
      await data.declarations.store.update((file) => {
        file.declarations = fixtureDeclarations(sydneyToday(new Date()));
        file.last_updated = new Date().toISOString();
      });
    });
    [a, b] = await Promise.all([start(), start()]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.server.kill()));
    await Promise.all([redis?.close(), postgres?.stop()]);
  });

  it('150 concurrent checks with one fresh key, split across both, give exactly 100 answers and 50 × 429', async () => {
    const clinic = await withData((data) => seedAccount(data));
    const statuses = await Promise.all(
      Array.from({ length: 150 }, async (_, i) => {
        const res = await checkPostcode(i % 2 === 0 ? a : b, clinic.apiKey, { postcode: '2480' });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);
  });

  it('a key revoked on A is refused by B on the very next request', async () => {
    const clinic = await withData((data) => seedAccount(data));
    expect((await checkPostcode(b, clinic.apiKey, { postcode: '2480' })).status).toBe(200);
    const admin = new SessionClient(a.url);
    expect((await admin.login(clinic.email, clinic.password)).status).toBe(200);
    expect((await admin.post('/api/v1/keys/revoke')).status).toBe(200);
    const res = await checkPostcode(b, clinic.apiKey, { postcode: '2480' });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe('invalid_api_key');
  });

  it('a key regenerated on B works on A at once, and the old one no longer does', async () => {
    const clinic = await withData((data) => seedAccount(data));
    const admin = new SessionClient(b.url);
    await admin.login(clinic.email, clinic.password);
    const regenerated = await admin.post('/api/v1/keys/regenerate');
    expect(regenerated.status).toBe(201);
    const fresh = (await json(regenerated)).data.api_key as string;
    expect((await checkPostcode(a, fresh, { postcode: '2480' })).status).toBe(200);
    expect((await checkPostcode(a, clinic.apiKey, { postcode: '2480' })).status).toBe(401);
  });

  it('a session made on A works on B (key status), and signing out on B ends it on A', async () => {
    const clinic = await withData((data) => seedAccount(data));
    const onA = new SessionClient(a.url);
    expect((await onA.login(clinic.email, clinic.password)).status).toBe(200);
    // The same cookie jar, sent to the other instance (a load balancer without sticky sessions).
    const onB = new SessionClient(b.url);
    onB.jar.set(onA.jar.get('dte.sid')!);
    const status = await onB.get('/api/v1/keys/status');
    expect(status.status).toBe(200);
    expect((await json(status)).data.key.key_prefix).toBe(clinic.apiKey!.slice(0, 12));
    expect((await onB.post('/api/v1/auth/logout')).status).toBe(200);
    expect((await onA.get('/api/v1/keys/status')).status).toBe(401);
  });

  it('a subscription the admin CLI ends is refused by both instances within 2 s', async () => {
    const clinic = await withData((data) => seedAccount(data));
    const cli = await runAdminWith({ ...env, DATA_DIR: await tempDir('dte-cli-') }, [
      'set-subscription',
      '--email',
      clinic.email,
      '--status',
      'inactive',
    ]);
    expect(cli.code).toBe(0);
    for (const instance of [a, b]) {
      const { elapsedMs } = await waitFor(
        async () => (await checkPostcode(instance, clinic.apiKey, { postcode: '2480' })).status === 403,
        { timeoutMs: 2_000, what: 'subscription_inactive' },
      );
      expect(elapsedMs).toBeLessThan(2_000);
    }
  });

  it('new declarations stored by one process are served by both instances within seconds', async () => {
    const clinic = await withData((data) => seedAccount(data, { rateLimit: 1000 }));
    const titleOn = async (url: string) => {
      const res = await checkPostcode({ url }, clinic.apiKey, { postcode: '2480' });
      const body = await json(res);
      return (body.data.disasters as { title: string }[]).map((d) => d.title);
    };
    await withData(async (data) => {
      await data.declarations.store.update((file) => {
        file.declarations.push({
          ...file.declarations.find((d) => d.agrn === '900')!,
          agrn: '9901',
          title: 'Northern Rivers Flooding (second instance test)',
          end_date: null,
        });
        file.last_updated = new Date().toISOString();
      });
    });
    for (const instance of [a, b]) {
      await waitFor(
        async () => (await titleOn(instance.url)).includes('Northern Rivers Flooding (second instance test)'),
        {
          timeoutMs: 3_000,
          what: 'the new declaration',
        },
      );
    }
  });

  it('kill -9 of an instance during key generation loses nothing: every key it acknowledged works, none is half made', async () => {
    const victim = await start();
    const clinics = await withData((data) =>
      Promise.all(Array.from({ length: 16 }, () => seedAccount(data, { withKey: false }))),
    );
    const sessions = await Promise.all(
      clinics.map(async (clinic) => {
        const client = new SessionClient(victim.url);
        expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
        return client;
      }),
    );
    // All sixteen generations at once; the process is killed as soon as the first is answered, the rest in flight.
    let firstAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (firstAnswered = resolve));
    const outcomes = sessions.map((client) =>
      client.post('/api/v1/keys/generate').then(
        async (res) => {
          firstAnswered();
          return res.status === 201 ? ((await json(res)).data.api_key as string) : null;
        },
        () => null,
      ),
    );
    await answered;
    await victim.server.kill();
    const acknowledged = await Promise.all(outcomes);
    expect(acknowledged.filter(Boolean).length).toBeGreaterThan(0);

    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    try {
      for (const [i, clinic] of clinics.entries()) {
        const { rows } = await client.query<{ status: string }>('SELECT status FROM api_keys WHERE account_id = $1', [
          clinic.accountId,
        ]);
        const key = acknowledged[i];
        if (key) {
          // Acknowledged: stored, and served by the surviving instances.
          expect(rows.map((r) => r.status)).toEqual(['active']);
          expect((await checkPostcode(a, key, { postcode: '2480' })).status).toBe(200);
        } else {
          // Cut short: either committed whole (one active key) or not at all; nothing is left locked either way.
          expect(rows.filter((r) => r.status !== 'active')).toEqual([]);
          expect(rows.length).toBeLessThanOrEqual(1);
          const onB = new SessionClient(b.url);
          await onB.login(clinic.email, clinic.password);
          const action = await onB.post(rows.length === 0 ? '/api/v1/keys/generate' : '/api/v1/keys/regenerate');
          expect(action.status).toBe(201);
          expect((await checkPostcode(a, (await json(action)).data.api_key, { postcode: '2480' })).status).toBe(200);
        }
      }
    } finally {
      await client.end();
    }
  });

  it('one refresh at a time across processes: `npm run ingest` is busy while another holds the lock, then stores data both instances serve', async () => {
    const s = scenario();
    const site = await startMockSite({ declarations: s.declarations, pageSize: 3, drfaCsv: s.drfaCsv });
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 2 });
    try {
      const cliEnv = {
        ...env,
        DATA_DIR: await tempDir('dte-ingest-'),
        DISASTERASSIST_BASE_URL: site.url,
        DRFA_CSV_URL: site.drfaUrl,
      };
      // Another instance's refresh, as far as the lock goes.
      const held = await tryAdvisoryLock(pool, 'ingest');
      expect(held).not.toBeNull();
      const busy = await runIngest(cliEnv, FAST_CLI_ARGS);
      expect(busy.code).toBe(1);
      expect(busy.stdout + busy.stderr).toMatch(/another refresh is running/);
      expect(site.requests).toHaveLength(0);
      await held!.release();

      const ran = await runIngest(cliEnv, FAST_CLI_ARGS);
      expect(ran.code, ran.stderr).toBe(0);
      const { rows } = await pool.query<{ last_updated: string }>('SELECT last_updated FROM declarations_meta');
      const stored = new Date(rows[0]!.last_updated).toISOString();
      for (const instance of [a, b]) {
        await waitFor(async () => (await json(await fetch(`${instance.url}/healthz`))).last_updated === stored, {
          timeoutMs: 3_000,
          what: 'the instance to serve the refreshed data',
        });
      }
    } finally {
      await pool.end();
      await site.close();
    }
  });

  it('Redis stopped under load: checks answer 503 with the envelope, never unlimited; back by themselves after', async () => {
    const clinic = await withData((data) => seedAccount(data, { rateLimit: 1000 }));
    const burst = () =>
      Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await checkPostcode(i % 2 === 0 ? a : b, clinic.apiKey, { postcode: '2480' });
          return { status: res.status, body: await res.text() };
        }),
      );
    expect((await burst()).every((r) => r.status === 200)).toBe(true);
    await redis.stop();
    try {
      const during = await burst();
      expect(during.map((r) => r.status)).toEqual(Array(20).fill(503));
      for (const r of during) expect(JSON.parse(r.body).error.code).toBe('rate_limit_unavailable');
      // A batch is refused by the rate limit as the check is, on each instance, before the allowance is asked.
      for (const instance of [a, b]) {
        const res = await checkBatchOf(instance, clinic.apiKey!, ['2480', '4000']);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
        expect(await res.json()).toEqual({
          success: false,
          error: { code: 'rate_limit_unavailable', message: 'Rate limiting is unavailable; try again shortly' },
        });
        const health = await fetch(`${instance.url}/healthz`);
        expect(health.status).toBeLessThan(500);
        await health.arrayBuffer();
      }
    } finally {
      await redis.start();
    }
    await waitFor(async () => (await burst()).every((r) => r.status === 200), {
      timeoutMs: 5_000,
      what: 'checks to recover after Redis restarted',
    });
    // Batches are answered again on both; Redis kept nothing (no persistence), so the day's allowance counts from
    // the restart: the two answered batches, nothing of the refused ones.
    const perDay = DEFAULT_BATCH_ROWS_PER_DAY;
    expect(await rowsLeftToday(await checkBatchOf(a, clinic.apiKey!, ['2480', '4000']))).toBe(perDay - 2);
    expect(await rowsLeftToday(await checkBatchOf(b, clinic.apiKey!, ['2480']))).toBe(perDay - 3);
    // Both instances are still up and healthy, and /healthz says Redis is reachable again.
    for (const instance of [a, b]) {
      const health = await json(await fetch(`${instance.url}/healthz`));
      expect(health.backends).toEqual({
        postgresql: { reachable: true, latency_ms: expect.any(Number) },
        redis: { reachable: true, latency_ms: expect.any(Number) },
      });
    }
  });
});
