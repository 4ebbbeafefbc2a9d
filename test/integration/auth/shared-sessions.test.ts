import http from 'node:http';
import type { Socket } from 'node:net';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { authRoutes } from '../../../server/auth/auth-routes';
import { counters } from '../../../server/backends/counters';
import type { LoginThrottle } from '../../../server/auth/login-throttle';
import { SignInService } from '../../../server/auth/sign-in';
import { errorHandler, notFound } from '../../../server/http/error-handler';
import { mountRoutes } from '../../../server/http/route';
import { keyRoutes } from '../../../server/keys/keys-routes';
import { createLogger } from '../../../server/logger';
import type { DataRuntime } from '../../../server/runtime';
import { PostgresSessionStore } from '../../../server/sessions/postgres-session-store';
import { OriginPolicy } from '../../../server/sessions/origin-policy';
import { cookieSession } from '../../../server/sessions/session-middleware';
import type { SessionStore } from '../../../server/sessions/session-store';
import { migrateDatabase } from '../../../server/storage/postgres/migrate';
import { usePostgresServer } from '../../helpers/postgres-per-file';
import { useRedisServer } from '../../helpers/redis-per-file';
import { serveOnLoopback } from '../../helpers/loopback-app';
import { tempDir } from '../../helpers/temp-dir';
import { openDataDir, seedAccount } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { json, SessionClient } from './session-client';

/**
 * Two instances of the sign-in and key endpoints (the app's own routers and middleware, each instance with its own
 * session store and login throttle, as two processes would have) over one Redis or one PostgreSQL: a session made on
 * one works on the other, sign-out on one ends it on both, and an unreachable backend is a 503 envelope.
 */
const IDLE_MS = 30 * 60_000;
const ABSOLUTE_MS = 12 * 3600_000;
const SECRET = 'a shared session secret of at least 32 characters';

const redis = useRedisServer();
let data: DataRuntime;
let seq = 0;
const cleanup: (() => Promise<void>)[] = [];
/** What the session middleware reported through the logger. */
const storeWarnings: Record<string, unknown>[] = [];

beforeAll(async () => {
  data = await openDataDir(await tempDir());
});

afterEach(async () => {
  redis.resume();
  for (const close of cleanup.splice(0).reverse()) await close();
});

afterAll(async () => {
  await data?.close();
});

interface Instance {
  url: string;
  sessions: SessionStore;
}

async function startInstance(sessions: SessionStore, throttle: LoginThrottle): Promise<Instance> {
  const clock = () => new Date();
  const app = express();
  const session = cookieSession({
    store: sessions,
    secret: SECRET,
    absoluteTimeoutMs: ABSOLUTE_MS,
    origins: new OriginPolicy(),
    logger: { warn: (fields: object, message?: string) => void storeWarnings.push({ ...fields, message }) },
  });
  const signIn = new SignInService(data.accounts, throttle, data.audit);
  mountRoutes(app, authRoutes({ signIn, accounts: data.accounts, sessions, clock, idleTimeoutMs: IDLE_MS }), session);
  mountRoutes(app, keyRoutes({ keys: data.keys, accounts: data.accounts, clock }), session, '/api/v1/keys');
  app.use(notFound);
  app.use(errorHandler(createLogger('silent')));
  const server = await serveOnLoopback(app);
  cleanup.push(async () => {
    await server.close();
    await sessions.close();
    await throttle.close();
  });
  return { url: server.url, sessions };
}

/** An instance with sessions and login counts in this test's Redis prefix (or counts in memory). */
async function redisInstance(keyPrefix: string, options: { throttleInRedis?: boolean } = {}): Promise<Instance> {
  const policy = { idleTimeoutMs: IDLE_MS, absoluteTimeoutMs: ABSOLUTE_MS, clock: () => new Date() };
  const sessions = await counters({ url: redis.url, keyPrefix, clock: 'redis', commandTimeoutMs: 300 }).sessions!(
    policy,
  );
  const limits = { perAccount: 5, perIp: 20, windowMs: 15 * 60_000 };
  const throttle = await counters(
    options.throttleInRedis === false ? null : { url: redis.url, keyPrefix, clock: 'redis' },
  ).loginThrottle(limits, Date.now);
  return startInstance(sessions, throttle);
}

/** The same browser session, presented to another instance. */
function sameBrowserOn(instance: Instance, client: SessionClient): SessionClient {
  const other = new SessionClient(instance.url);
  other.jar.set(client.jar.get('dte.sid')!);
  return other;
}

async function expectEnvelope(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
  expect(ErrorEnvelope.parse(await res.json()).error.code).toBe(code);
}

describe('two instances on one Redis', () => {
  it('share sessions: signed in on A, signed in on B; signed out on B, signed out on A', async () => {
    expect(redis).toBeDefined();
    const prefix = `h${++seq}:`;
    const [a, b] = await Promise.all([redisInstance(prefix), redisInstance(prefix)]);
    expect(a.sessions.backend).toBe('redis');
    const clinic = await seedAccount(data, { withKey: false });
    const onA = new SessionClient(a.url);
    const login = await onA.login(clinic.email, clinic.password);
    expect(login.status).toBe(200);
    const loginBody = await json(login);
    expect(Date.parse(loginBody.data.expires_at)).toBeGreaterThan(Date.now() + IDLE_MS - 5000);

    const onB = sameBrowserOn(b, onA);
    expect((await onB.get('/api/v1/keys/status')).status).toBe(200);
    const session = await json(await onB.get('/api/v1/auth/session'));
    expect(session.data).toMatchObject({ authenticated: true, account: { id: clinic.accountId } });
    expect(Date.parse(session.data.expires_at)).toBeLessThanOrEqual(Date.now() + IDLE_MS);
    expect((await onB.post('/api/v1/keys/generate')).status).toBe(201);

    expect((await onB.post('/api/v1/auth/logout')).status).toBe(200);
    expect((await onA.get('/api/v1/keys/status')).status).toBe(401);
    expect((await json(await onA.get('/api/v1/auth/session'))).data.authenticated).toBe(false);
  });

  it('share the login throttle: 5 failures on A, the 6th attempt on B is refused with 429', async () => {
    const prefix = `h${++seq}:`;
    const [a, b] = await Promise.all([redisInstance(prefix), redisInstance(prefix)]);
    const clinic = await seedAccount(data, { withKey: false });
    for (let i = 0; i < 5; i++) {
      expect((await new SessionClient(a.url).login(clinic.email, `wrong ${i}`)).status).toBe(401);
    }
    const blocked = await new SessionClient(b.url).login(clinic.email, clinic.password);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
  });

  it('answer 503 envelopes while Redis is out (never "signed out", never a pass), and recover by themselves', async () => {
    const prefix = `h${++seq}:`;
    const [a, b] = await Promise.all([redisInstance(prefix), redisInstance(prefix, { throttleInRedis: false })]);
    const clinic = await seedAccount(data, { withKey: false });
    const onA = new SessionClient(a.url);
    expect((await onA.login(clinic.email, clinic.password)).status).toBe(200);

    await redis.stop();
    const started = Date.now();
    await expectEnvelope(await onA.get('/api/v1/keys/status'), 503, 'session_unavailable');
    await expectEnvelope(await onA.get('/api/v1/auth/session'), 503, 'session_unavailable');
    await expectEnvelope(await onA.post('/api/v1/auth/logout'), 503, 'session_unavailable');
    // Throttle in Redis: refused before any password work.
    await expectEnvelope(
      await new SessionClient(a.url).login(clinic.email, clinic.password),
      503,
      'rate_limit_unavailable',
    );
    // Throttle in memory, sessions in Redis: the password is right but no session can be made.
    await expectEnvelope(
      await new SessionClient(b.url).login(clinic.email, clinic.password),
      503,
      'session_unavailable',
    );
    expect(Date.now() - started).toBeLessThan(3000);

    await redis.start();
    // Redis kept nothing (no persistence): the old session is gone, a new sign-in works, on the same instances.
    const again = new SessionClient(a.url);
    await waitFor(async () => (await again.login(clinic.email, clinic.password)).status === 200, {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'sign-in to work again after Redis restarted',
    });
    expect((await sameBrowserOn(b, again).get('/api/v1/keys/status')).status).toBe(200);
  });

  it('answer 503 within the command timeout while Redis hangs', async () => {
    const prefix = `h${++seq}:`;
    const a = await redisInstance(prefix);
    const clinic = await seedAccount(data, { withKey: false });
    const onA = new SessionClient(a.url);
    expect((await onA.login(clinic.email, clinic.password)).status).toBe(200);
    redis.pause();
    const started = Date.now();
    await expectEnvelope(await onA.get('/api/v1/keys/status'), 503, 'session_unavailable');
    expect(Date.now() - started).toBeLessThan(1500);
    redis.resume();
    await waitFor(async () => (await onA.get('/api/v1/keys/status')).status === 200, {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'the session to work again once Redis answers',
    });
  });
});

/** GET over `agent` (one keep-alive socket): the status, the body, and the socket it went over. */
function getOn(
  agent: http.Agent,
  url: string,
  cookie: string,
): Promise<{ status: number; body: string; socket: Socket; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { cookie } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, body, socket: req.socket!, connection: res.headers.connection }),
      );
    });
    req.on('error', reject);
  });
}

describe('a Redis that hangs during session traffic', () => {
  it('ends neither the keep-alive connection nor the session: the next request on it is answered, the session still works', async () => {
    const prefix = `h${++seq}:`;
    const a = await redisInstance(prefix);
    const clinic = await seedAccount(data, { withKey: false });
    const onA = new SessionClient(a.url);
    expect((await onA.login(clinic.email, clinic.password)).status).toBe(200);
    const cookie = onA.jar.headerFor('/api/v1/keys/status')!;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    cleanup.push(async () => agent.destroy());
    storeWarnings.length = 0;

    redis.pause();
    const failed = await getOn(agent, `${a.url}/api/v1/keys/status`, cookie);
    expect(failed.status).toBe(503);
    expect(JSON.parse(failed.body).error.code).toBe('session_unavailable');
    // What the store does after the answer (it used to try to destroy the session) must not cut the connection.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const next = await getOn(agent, `${a.url}/api/v1/keys/nothing-here`, cookie);
    expect(next.socket).toBe(failed.socket);
    expect(next.status).not.toBe(200);
    expect(JSON.parse(next.body).error.code).toBe('session_unavailable');

    redis.resume();
    // Once Redis answers again (and has run whatever was queued while it hung), the session is still there: it was
    // never ended by a store error.
    const { value: status } = await waitFor(
      async () => {
        const res = await getOn(agent, `${a.url}/api/v1/keys/status`, cookie);
        return res.status === 503 ? null : res;
      },
      { timeoutMs: 5000, intervalMs: 100, what: 'Redis to answer again' },
    );
    expect(status.status).toBe(200);
    expect(status.socket).toBe(failed.socket);
    expect(storeWarnings).toEqual([]);
  });
});

describe('two instances on one PostgreSQL', () => {
  const postgres = usePostgresServer();

  it('share sessions through the sessions table (only the id’s hash and the account id stored)', async () => {
    const url = await postgres.createDatabase('shared_sessions');
    const pool = () => postgres.pool(url);
    const inspect = pool();
    await migrateDatabase(inspect, { logger: { info: () => undefined, warn: () => undefined } as never });
    const clinic = await seedAccount(data, { withKey: false });
    // The accounts live in DATA_DIR here; the table's foreign key wants the account in PostgreSQL too.
    await inspect.query(`INSERT INTO accounts (id, email, password_hash, created_at) VALUES ($1, $2, 'x', now())`, [
      clinic.accountId,
      clinic.email,
    ]);
    const policy = { idleTimeoutMs: IDLE_MS, absoluteTimeoutMs: ABSOLUTE_MS, clock: () => new Date() };
    const instance = async () =>
      startInstance(
        new PostgresSessionStore({ pool: pool(), policy }),
        await counters(null).loginThrottle({ perAccount: 5, perIp: 20, windowMs: 15 * 60_000 }, Date.now),
      );
    const [a, b] = await Promise.all([instance(), instance()]);
    expect(a.sessions.backend).toBe('postgres');

    const onA = new SessionClient(a.url);
    expect((await onA.login(clinic.email, clinic.password)).status).toBe(200);
    const onB = sameBrowserOn(b, onA);
    const session = await json(await onB.get('/api/v1/auth/session'));
    expect(session.data).toMatchObject({ authenticated: true, account: { id: clinic.accountId } });
    expect((await onB.get('/api/v1/keys/status')).status).toBe(200);

    const rows = JSON.stringify((await inspect.query('SELECT * FROM sessions')).rows);
    const sid = decodeURIComponent(onA.sessionCookie!).slice(2).split('.')[0]!;
    expect(rows).toContain(clinic.accountId);
    expect(rows).not.toContain(sid);
    expect(rows).not.toContain(clinic.email);

    expect((await onB.post('/api/v1/auth/logout')).status).toBe(200);
    expect((await onA.get('/api/v1/keys/status')).status).toBe(401);
    expect((await inspect.query('SELECT count(*)::int AS n FROM sessions')).rows[0].n).toBe(0);
  });
});
