import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sydneyToday } from '../../../shared/domain/dates';
import type { DataRuntime } from '../../../server/runtime';
import { fixtureDeclarations } from '../../fixtures/declarations';
import { usePostgresServer } from '../../helpers/postgres-per-file';
import { useRedisServer } from '../../helpers/redis-per-file';
import { runAdminWith } from '../../helpers/run-cli';
import { startServerProcess, type ServerProcess } from '../../helpers/spawn-server';
import { tempDir } from '../../helpers/temp-dir';
import { checkPostcode, openSharedData, seedAccount } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { startDeafInstance, type DeafInstance } from './deaf-instance';

/**
 * Issue #25: on PostgreSQL and Redis a check makes one round trip (the rate-limit script, which also reads the data
 * epoch), and still sees every write answered on another instance before it arrived. A is a real `npm start` process;
 * B runs in this process with its LISTEN notifications and its poll switched off (deaf-instance.ts), so that all it
 * learns of A's writes it learns from the epoch on a request's path, and its calls to the backends can be counted.
 */
describe('the data epoch: one round trip per check, every instance current on its next request', () => {
  const postgres = usePostgresServer();
  const redis = useRedisServer();
  let env: Record<string, string>;
  let a: { server: ServerProcess; url: string };
  let b: DeafInstance;
  let data: DataRuntime;

  beforeAll(async () => {
    env = {
      DATABASE_URL: await postgres.createDatabase('data_epoch'),
      REDIS_URL: redis.url,
      SESSION_SECRET: 'a shared session secret of at least 32 characters',
    };
    // Opened as the admin CLI opens the data: its commits move the epoch too.
    data = await openSharedData(env);
    await data.declarations.store.update((file) => {
      file.declarations = fixtureDeclarations(sydneyToday(new Date()));
      file.last_updated = new Date().toISOString();
    });
    [a, b] = await Promise.all([
      startServerProcess({ ...env, DATA_DIR: await tempDir('dte-instance-') }),
      startDeafInstance(env),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.server.kill(), b?.close(), data?.close()]);
  });

  const check = async (target: { url: string }, apiKey: string | null) => {
    const res = await checkPostcode(target, apiKey, { postcode: '2480' });
    return { status: res.status, body: await json(res) };
  };
  const epoch = () => redis.inspect.get('dte:data-epoch');

  it('in steady state a check sends one Redis command and no PostgreSQL query', async () => {
    const clinic = await seedAccount(data, { rateLimit: 1_000 });
    // The first check after a commit catches up; the ones after it find nothing new.
    expect((await check(b, clinic.apiKey)).status).toBe(200);
    for (let attempt = 1; ; attempt++) {
      const before = await epoch();
      b.calls.reset();
      for (let i = 0; i < 50; i++) expect((await check(b, clinic.apiKey)).status).toBe(200);
      const counted = { ...b.calls };
      // A commit somewhere during the measurement (A's background work) is not steady state: measure again.
      if ((await epoch()) !== before && attempt < 3) continue;
      expect(counted).toMatchObject({ queries: 0, connects: 0, syncs: 0, redisCommands: 50 });
      break;
    }
  });

  it('a key revoked on A is refused on B’s very next check', async () => {
    const clinic = await seedAccount(data);
    expect((await check(b, clinic.apiKey)).status).toBe(200);
    const onA = new SessionClient(a.url);
    expect((await onA.login(clinic.email, clinic.password)).status).toBe(200);
    b.calls.reset();
    expect((await onA.post('/api/v1/keys/revoke')).status).toBe(200);
    const next = await check(b, clinic.apiKey);
    expect(next.status).toBe(401);
    expect(next.body.error.code).toBe('invalid_api_key');
    // Learned from the epoch, on the request's path: one catch-up, and the request counted once.
    expect(b.calls.syncs).toBe(1);
    expect(b.calls.redisCommands).toBe(2);
  });

  it('a key generated on A is accepted on B’s very next check', async () => {
    const clinic = await seedAccount(data, { withKey: false });
    const onA = new SessionClient(a.url);
    expect((await onA.login(clinic.email, clinic.password)).status).toBe(200);
    // B has seen the account's state before the key exists.
    expect((await check(b, 'sk_live_00000000000000000000000000000000')).status).toBe(401);
    const generated = await onA.post('/api/v1/keys/generate');
    expect(generated.status).toBe(201);
    const apiKey = (await json(generated)).data.api_key as string;
    expect((await check(b, apiKey)).status).toBe(200);
  });

  it('a subscription ended on A’s side (the admin CLI) is refused with 403 on B’s very next check', async () => {
    const clinic = await seedAccount(data);
    expect((await check(b, clinic.apiKey)).status).toBe(200);
    const ended = ['set-subscription', '--email', clinic.email, '--status', 'inactive'];
    const cli = await runAdminWith({ ...env, DATA_DIR: await tempDir('dte-cli-') }, ended);
    expect(cli.code, cli.stderr).toBe(0);
    const next = await check(b, clinic.apiKey);
    expect(next.status).toBe(403);
    expect(next.body.error.code).toBe('subscription_inactive');
    expect((await check(a, clinic.apiKey)).status).toBe(403);
  });

  it('a limit raised on the admin side applies on B’s very next check', async () => {
    const clinic = await seedAccount(data, { rateLimit: 1 });
    expect((await check(b, clinic.apiKey)).status).toBe(200);
    expect((await check(b, clinic.apiKey)).status).toBe(429);
    await data.accounts.setSubscription(clinic.email, { rateLimit: 3 });
    const res = await checkPostcode(b, clinic.apiKey, { postcode: '2480' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('3');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it('150 concurrent checks split across A and B, with commits moving the epoch during the burst: exactly 100 and 50', async () => {
    const clinic = await seedAccount(data);
    b.calls.reset();
    let writing = true;
    // Commits of a document the check reads, as fast as they go, each moving the epoch while checks are in flight.
    const writes = (async () => {
      let n = 0;
      while (writing) {
        await data.declarations.store.update(
          (file) => void (file.last_updated = new Date(Date.now() + ++n).toISOString()),
        );
      }
      return n;
    })();
    const statuses = await Promise.all(
      Array.from({ length: 150 }, async (_, i) => (await check(i % 2 === 0 ? a : b, clinic.apiKey)).status),
    );
    writing = false;
    expect(await writes).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);
    // The stale path was taken under concurrency (each catch-up shared by the requests waiting for it).
    expect(b.calls.syncs).toBeGreaterThan(0);
  });

  it('an instance without Redis keeps asking PostgreSQL before each check, and sees A’s revocation at once', async () => {
    const { REDIS_URL: _redis, ...withoutRedis } = env;
    const c = await startDeafInstance(withoutRedis);
    try {
      const clinic = await seedAccount(data);
      expect((await check(c, clinic.apiKey)).status).toBe(200);
      c.calls.reset();
      expect((await check(c, clinic.apiKey)).status).toBe(200);
      expect(c.calls.syncs).toBe(1);
      const onA = new SessionClient(a.url);
      expect((await onA.login(clinic.email, clinic.password)).status).toBe(200);
      expect((await onA.post('/api/v1/keys/revoke')).status).toBe(200);
      expect((await check(c, clinic.apiKey)).status).toBe(401);
    } finally {
      await c.close();
    }
  });

  it('the database silent while the epoch has moved: B answers from memory after 500 ms, then catches up', async () => {
    const clinic = await seedAccount(data, { rateLimit: 1_000 });
    expect((await check(b, clinic.apiKey)).status).toBe(200);
    const undo = b.hangSyncs();
    try {
      await data.declarations.store.update((file) => void (file.last_updated = new Date().toISOString()));
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        expect((await check(b, clinic.apiKey)).status).toBe(200);
        expect(Date.now() - started).toBeGreaterThanOrEqual(450);
        expect(Date.now() - started).toBeLessThan(2_000);
      }
    } finally {
      undo();
    }
    b.calls.reset();
    expect((await check(b, clinic.apiKey)).status).toBe(200);
    expect(b.calls.syncs).toBe(1);
    b.calls.reset();
    expect((await check(b, clinic.apiKey)).status).toBe(200);
    expect(b.calls.syncs).toBe(0);
  });
});
