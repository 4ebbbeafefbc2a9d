import { storedText } from '../../helpers/stored-state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionData } from '../../../shared/api/auth';
import { successEnvelope } from '../../../shared/api/envelope';
import { seedAccount, startTestServer, type SeededAccount, type TestServer } from '../../helpers/test-server';
import { testBackend } from '../../helpers/shared-backends';
import { json, SessionClient } from './session-client';

const SESSION = successEnvelope(SessionData);

describe('POST /api/v1/auth/login, GET /api/v1/auth/session, POST /api/v1/auth/logout', () => {
  let server: TestServer;
  let clinic: SeededAccount;

  beforeAll(async () => {
    server = await startTestServer();
    clinic = await seedAccount(server.runtime, { withKey: false });
  });
  afterAll(() => server.close());

  it('signs in with the right password: 200, the session, and an httpOnly SameSite=Lax cookie for /api/v1', async () => {
    const client = new SessionClient(server.url);
    const started = Date.now();
    const res = await client.login(clinic.email, clinic.password);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = SESSION.parse(await res.json());
    expect(body.data).toMatchObject({ authenticated: true, account: { id: clinic.accountId, email: clinic.email } });
    // Idle deadline: 30 minutes from now.
    const expires = Date.parse(body.data.expires_at!);
    expect(expires - started).toBeGreaterThan(29 * 60_000);
    expect(expires - started).toBeLessThanOrEqual(30 * 60_000 + 5_000);

    const cookies = res.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const cookie = client.jar.get('dte.sid')!;
    expect(cookie.attributes.httponly).toBe(true);
    expect(String(cookie.attributes.samesite).toLowerCase()).toBe('lax');
    expect(cookie.path).toBe('/api/v1');
    expect(cookie.attributes.secure).toBeUndefined(); // plain HTTP, no trusted proxy
    // Signed session id, not guessable and not the account id.
    expect(cookie.value).toMatch(/^s%3A[A-Za-z0-9_-]{43}\.[A-Za-z0-9%+/_-]+$/);
    expect(cookie.value).not.toContain(clinic.accountId);

    const session = await client.get('/api/v1/auth/session');
    expect(session.status).toBe(200);
    expect(SESSION.parse(await session.json()).data).toMatchObject({
      authenticated: true,
      account: { email: clinic.email },
    });
  });

  it('matches the email without regard to case or surrounding spaces', async () => {
    const client = new SessionClient(server.url);
    const res = await client.login(`  ${clinic.email.toUpperCase()} `, clinic.password);
    expect(res.status).toBe(200);
  });

  it('answers GET /auth/session without a session as signed out, and sets no cookie', async () => {
    const client = new SessionClient(server.url);
    const res = await client.get('/api/v1/auth/session');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      success: true,
      data: { authenticated: false, account: null, organisation: null, expires_at: null },
    });
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('gives a wrong password and an unknown email the same 401, and no cookie', async () => {
    const client = new SessionClient(server.url);
    const wrong = await client.login(clinic.email, 'not the password at all');
    const unknown = await client.login('nobody-here@example.test', clinic.password);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const expected = { success: false, error: { code: 'invalid_credentials', message: 'Invalid email or password' } };
    expect(await json(wrong)).toEqual(expected);
    expect(await json(unknown)).toEqual(expected);
    expect(wrong.headers.getSetCookie()).toEqual([]);
    expect(unknown.headers.getSetCookie()).toEqual([]);
    expect(client.jar.size).toBe(0);
  });

  it('takes as long for an unknown email as for a wrong password (both run scrypt)', async () => {
    const timed = async (email: string) => {
      const started = performance.now();
      const res = await new SessionClient(server.url).login(email, 'a wrong password');
      expect(res.status).toBe(401);
      return performance.now() - started;
    };
    const wrongPassword: number[] = [];
    const unknownEmail: number[] = [];
    // Separate emails keep the per-account throttle out of it; the per-address limit (20) is not reached.
    const other = await seedAccount(server.runtime, { withKey: false });
    for (let i = 0; i < 4; i++) {
      wrongPassword.push(await timed(i % 2 ? clinic.email : other.email));
      unknownEmail.push(await timed(`ghost${i}@example.test`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(unknownEmail) / median(wrongPassword);
    // Skipping scrypt for unknown emails would make this ratio ~0.05; a noisy machine stays well within 0.5–2.
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });

  it('refuses malformed sign-in requests with the contract errors', async () => {
    const client = new SessionClient(server.url);
    const cases: [unknown, number, string][] = [
      [{ email: clinic.email }, 400, 'invalid_request'],
      [{ password: clinic.password }, 400, 'invalid_request'],
      [{ email: 'not-an-email', password: 'x' }, 400, 'invalid_request'],
      [{ email: clinic.email, password: '' }, 400, 'invalid_request'],
      [{ email: clinic.email, password: 42 }, 400, 'invalid_request'],
      [[clinic.email, clinic.password], 400, 'invalid_request'],
      ['{"email": ', 400, 'invalid_json'],
      [{ email: clinic.email, password: 'x'.repeat(11 * 1024) }, 413, 'payload_too_large'],
    ];
    for (const [body, status, code] of cases) {
      const res = await client.post('/api/v1/auth/login', { body });
      expect({ body, status: res.status, code: (await json(res)).error?.code }).toEqual({ body, status, code });
    }
    const form = await client.post('/api/v1/auth/login', {
      body: `email=${clinic.email}&password=x`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect((await json(form)).error.code).toBe('unsupported_media_type');
    expect(client.jar.size).toBe(0);
  });

  it('regenerates the session id at sign-in: the id the browser came with stops working', async () => {
    const client = new SessionClient(server.url);
    await client.login(clinic.email, clinic.password);
    const first = client.sessionCookie!;
    const again = await client.login(clinic.email, clinic.password);
    expect(again.status).toBe(200);
    const second = client.sessionCookie!;
    expect(second).not.toBe(first);

    const stale = new SessionClient(server.url);
    stale.jar.set({ name: 'dte.sid', value: first, path: '/api/v1', expiresAt: null, attributes: {} });
    expect((await json(await stale.get('/api/v1/auth/session'))).data.authenticated).toBe(false);
    expect((await stale.get('/api/v1/keys/status')).status).toBe(401);
    expect((await client.get('/api/v1/keys/status')).status).toBe(200);
  });

  it('ignores a forged or tampered cookie', async () => {
    const client = new SessionClient(server.url);
    await client.login(clinic.email, clinic.password);
    const real = client.sessionCookie!;
    const tampered = real.replace(/\.[^.]+$/, '.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const forged = new SessionClient(server.url);
    for (const value of [tampered, 'plainsessionid', 's%3Aabc.def']) {
      forged.jar.set({ name: 'dte.sid', value, path: '/api/v1', expiresAt: null, attributes: {} });
      expect((await forged.get('/api/v1/keys/status')).status).toBe(401);
    }
  });

  it('signs out: 200 signed out, the cookie is cleared, and the old cookie no longer works anywhere', async () => {
    const client = new SessionClient(server.url);
    await client.login(clinic.email, clinic.password);
    const cookie = client.sessionCookie!;
    expect((await client.get('/api/v1/keys/status')).status).toBe(200);

    const res = await client.post('/api/v1/auth/logout');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      success: true,
      data: { authenticated: false, account: null, organisation: null, expires_at: null },
    });
    const cleared = res.headers.getSetCookie().find((c) => c.startsWith('dte.sid='));
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(cleared).toMatch(/Path=\/api\/v1/);
    expect(client.sessionCookie).toBeUndefined();

    // A copy of the cookie kept elsewhere (a stolen one, say) is dead too: the session is gone from the store.
    const replay = new SessionClient(server.url);
    replay.jar.set({ name: 'dte.sid', value: cookie, path: '/api/v1', expiresAt: null, attributes: {} });
    const status = await replay.get('/api/v1/keys/status');
    expect(status.status).toBe(401);
    expect(await json(status)).toEqual({
      success: false,
      error: { code: 'unauthenticated', message: 'Sign in required' },
    });
    expect((await json(await replay.get('/api/v1/auth/session'))).data.authenticated).toBe(false);

    // Signing out without a session is harmless.
    const again = await new SessionClient(server.url).post('/api/v1/auth/logout');
    expect(again.status).toBe(200);
  });

  it('records sign-ins, failed sign-ins and sign-outs in the audit log', async () => {
    const fresh = await seedAccount(server.runtime, { withKey: false });
    const client = new SessionClient(server.url);
    await client.login(fresh.email, 'wrong password!');
    await client.login(fresh.email, fresh.password);
    await client.post('/api/v1/auth/logout');
    await client.login('stranger@example.test', 'whatever it is');
    const events = await server.runtime.audit.read({ email: fresh.email });
    expect(events.map((e) => e.event)).toEqual(['login_failed', 'login', 'logout']);
    expect(events.every((e) => e.account_id === fresh.accountId && e.source === 'web' && e.ip === '127.0.0.1')).toBe(
      true,
    );
    expect(events[0]!.reason).toBe('invalid_credentials');
    const stranger = await server.runtime.audit.read({ email: 'stranger@example.test' });
    expect(stranger).toEqual([
      expect.objectContaining({ event: 'login_failed', account_id: null, email: 'stranger@example.test' }),
    ]);
    const raw = await storedText(server.dataDir);
    expect(raw).not.toContain('wrong password!');
    expect(raw).not.toContain(fresh.password);
  });
});

describe('session cookie behind an HTTPS proxy', () => {
  it('is Secure when TRUST_PROXY trusts the proxy that says the request came over HTTPS', async () => {
    const server = await startTestServer({ trustProxy: true });
    try {
      const clinic = await seedAccount(server.runtime, { withKey: false });
      const client = new SessionClient(server.url);
      const res = await client.login(clinic.email, clinic.password, {
        origin: 'https://telehealth.clinic.example',
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'telehealth.clinic.example' },
      });
      expect(res.status).toBe(200);
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('dte.sid='))!;
      expect(cookie).toMatch(/; Secure/);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Lax/);
    } finally {
      await server.close();
    }
  });

  it('is not Secure when the forwarded protocol comes from an untrusted client', async () => {
    const server = await startTestServer({ trustProxy: false });
    try {
      const clinic = await seedAccount(server.runtime, { withKey: false });
      const res = await new SessionClient(server.url).login(clinic.email, clinic.password, {
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie().find((c) => c.startsWith('dte.sid='))).not.toMatch(/Secure/);
    } finally {
      await server.close();
    }
  });
});

describe.runIf(testBackend() === 'shared')('PostgreSQL without Redis: sessions in the sessions table', () => {
  let server: TestServer;
  let clinic: SeededAccount;

  beforeAll(async () => {
    server = await startTestServer({ config: { REDIS_URL: undefined } });
    clinic = await seedAccount(server.runtime, { withKey: false });
  });
  afterAll(() => server.close());

  it('signs in, keeps the session across requests, and signs out', async () => {
    const client = new SessionClient(server.url);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
    const session = await client.get('/api/v1/auth/session');
    expect(SESSION.parse(await session.json()).data).toMatchObject({ authenticated: true });
    expect((await client.get('/api/v1/keys/status')).status).toBe(200);
    expect((await client.post('/api/v1/auth/logout')).status).toBe(200);
    expect((await client.get('/api/v1/keys/status')).status).toBe(401);
  });
});
