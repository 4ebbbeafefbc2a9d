import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { testBackend } from '../../helpers/shared-backends';
import { afterEach, describe, expect, it } from 'vitest';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { json, SessionClient } from './session-client';

const MINUTE = 60_000;
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const server = await startTestServer(options);
  servers.push(server);
  return server;
}

function fakeClock(start = Date.now()) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms) };
}

/** The session id inside the signed cookie value `s:<id>.<signature>`. */
function sessionIdOf(cookieValue: string): string {
  return decodeURIComponent(cookieValue).slice(2).split('.')[0]!;
}

describe('session lifetime', () => {
  it('ends a session after 30 idle minutes; each request pushes the deadline back', async () => {
    const time = fakeClock();
    const server = await start({ clock: time.clock });
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const client = new SessionClient(server.url);
    await client.login(clinic.email, clinic.password);

    time.advance(29 * MINUTE);
    expect((await client.get('/api/v1/keys/status')).status).toBe(200);
    time.advance(29 * MINUTE); // 58 minutes after sign-in, 29 after the last request
    const session = await json(await client.get('/api/v1/auth/session'));
    expect(session.data.authenticated).toBe(true);
    expect(Date.parse(session.data.expires_at)).toBe(time.clock().getTime() + 30 * MINUTE);

    time.advance(30 * MINUTE);
    const expired = await client.get('/api/v1/keys/status');
    expect(expired.status).toBe(401);
    expect((await json(expired)).error.code).toBe('unauthenticated');
    expect((await json(await client.get('/api/v1/auth/session'))).data.authenticated).toBe(false);
    expect((await client.post('/api/v1/keys/generate')).status).toBe(401);
  });

  it('ends a busy session 12 hours after sign-in however active it is, and reports that deadline', async () => {
    const time = fakeClock();
    const server = await start({ clock: time.clock });
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const client = new SessionClient(server.url);
    await client.login(clinic.email, clinic.password);
    const signedInAt = time.clock().getTime();

    for (let elapsed = 20 * MINUTE; elapsed < 12 * 60 * MINUTE; elapsed += 20 * MINUTE) {
      time.advance(20 * MINUTE);
      expect((await client.get('/api/v1/keys/status')).status, `after ${elapsed / MINUTE} minutes`).toBe(200);
    }
    // 11 h 40 min in: the idle deadline is capped by the absolute one.
    const session = await json(await client.get('/api/v1/auth/session'));
    expect(Date.parse(session.data.expires_at)).toBe(signedInAt + 12 * 60 * MINUTE);

    time.advance(20 * MINUTE);
    expect((await client.get('/api/v1/keys/status')).status).toBe(401);
  });

  it('honours configured timeouts', async () => {
    const time = fakeClock();
    const server = await start({
      clock: time.clock,
      auth: { idleTimeoutMs: 5 * MINUTE, absoluteTimeoutMs: 60 * MINUTE },
    });
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const client = new SessionClient(server.url);
    const res = await client.login(clinic.email, clinic.password);
    expect(res.headers.getSetCookie()[0]).toMatch(/Expires=/); // the cookie lives no longer than the absolute limit
    time.advance(4 * MINUTE);
    expect((await client.get('/api/v1/keys/status')).status).toBe(200);
    time.advance(6 * MINUTE);
    expect((await client.get('/api/v1/keys/status')).status).toBe(401);
  });

  // The file store's own behaviour; the shared stores' are in test/integration/sessions.
  it.skipIf(testBackend() === 'shared')(
    'purges expired sessions from sessions.json and keeps only a hash of live session ids there',
    async () => {
      const time = fakeClock();
      const server = await start({ clock: time.clock });
      const clinic = await seedAccount(server.runtime, { withKey: false });
      const early = new SessionClient(server.url);
      await early.login(clinic.email, clinic.password);
      time.advance(20 * MINUTE);
      const late = new SessionClient(server.url);
      await late.login(clinic.email, clinic.password);

      const file = path.join(server.dataDir, 'sessions.json');
      const earlyId = sessionIdOf(early.sessionCookie!);
      const lateId = sessionIdOf(late.sessionCookie!);
      const before = await readFile(file, 'utf8');
      expect(before).not.toContain(earlyId);
      expect(before).not.toContain(lateId);
      expect(before).toContain(createHash('sha256').update(lateId).digest('hex'));
      // The session references the account id and nothing else about it.
      const stored = JSON.parse(before).sessions as Record<string, Record<string, unknown>>;
      for (const record of Object.values(stored)) {
        expect(Object.keys(record).sort()).toEqual(['account_id', 'cookie', 'created_at', 'last_seen_at']);
        expect(record.account_id).toBe(clinic.accountId);
      }
      expect(before).not.toContain(clinic.email);

      time.advance(15 * MINUTE); // early: 35 idle minutes; late: 15
      expect(await server.runtime.sessions.purge()).toBe(1);
      const after = JSON.parse(await readFile(file, 'utf8')).sessions as Record<string, unknown>;
      expect(Object.keys(after)).toEqual([createHash('sha256').update(lateId).digest('hex')]);
      expect((await late.get('/api/v1/keys/status')).status).toBe(200);
    },
  );

  // The file store's own behaviour; the shared stores' are in test/integration/sessions.
  it.skipIf(testBackend() === 'shared')(
    'keeps sessions across a server restart (same DATA_DIR, secret generated once into it with mode 0600)',
    async () => {
      const dataDir = await tempDir();
      const first = await start({ dataDir });
      const clinic = await seedAccount(first.runtime, { withKey: false });
      const client = new SessionClient(first.url);
      await client.login(clinic.email, clinic.password);
      const secretFile = path.join(dataDir, 'session-secret');
      expect((await stat(secretFile)).mode & 0o777).toBe(0o600);
      const secret = await readFile(secretFile, 'utf8');
      await first.close();
      servers.splice(servers.indexOf(first), 1);

      const second = await start({ dataDir });
      const again = new SessionClient(second.url);
      again.jar.set(client.jar.get('dte.sid')!);
      const status = await again.get('/api/v1/keys/status');
      expect(status.status).toBe(200);
      expect(await readFile(secretFile, 'utf8')).toBe(secret);
      const generated = await again.post('/api/v1/keys/generate');
      expect(generated.status).toBe(201);
    },
  );

  it('does not accept cookies signed with another secret (SESSION_SECRET changed)', async () => {
    const dataDir = await tempDir();
    const first = await start({ dataDir, auth: { sessionSecret: 'a'.repeat(40) } });
    const clinic = await seedAccount(first.runtime, { withKey: false });
    const client = new SessionClient(first.url);
    await client.login(clinic.email, clinic.password);
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    const second = await start({ dataDir, auth: { sessionSecret: 'b'.repeat(40) } });
    const again = new SessionClient(second.url);
    again.jar.set(client.jar.get('dte.sid')!);
    expect((await again.get('/api/v1/keys/status')).status).toBe(401);
  });
});
