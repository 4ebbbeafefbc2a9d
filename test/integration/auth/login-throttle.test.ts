import { afterEach, describe, expect, it } from 'vitest';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from './session-client';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function fakeClock(start = Date.now()) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('login throttling', () => {
  it('allows 5 failures per account in 15 minutes, then refuses even the right password with 429 and Retry-After', async () => {
    const time = fakeClock();
    server = await startTestServer({ clock: time.clock });
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const client = new SessionClient(server.url);
    for (let i = 0; i < 5; i++) expect((await client.login(clinic.email, `wrong guess ${i}`)).status).toBe(401);

    const blocked = await client.login(clinic.email, clinic.password);
    expect(blocked.status).toBe(429);
    expect(await json(blocked)).toEqual({
      success: false,
      error: { code: 'rate_limited', message: 'Rate limit exceeded' },
    });
    expect(Number(blocked.headers.get('retry-after'))).toBe(15 * 60);
    expect(blocked.headers.getSetCookie()).toEqual([]);

    time.advance(10 * 60_000);
    const stillBlocked = await client.login(clinic.email, clinic.password);
    expect(stillBlocked.status).toBe(429);
    expect(Number(stillBlocked.headers.get('retry-after'))).toBe(5 * 60);

    time.advance(5 * 60_000);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
  });

  it('throttles an unknown email exactly like a known one, so the throttle does not reveal which accounts exist', async () => {
    server = await startTestServer();
    const client = new SessionClient(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await client.login('no-such-clinic@example.test', `guess ${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('forgets an account’s failures after a successful sign-in', async () => {
    server = await startTestServer();
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const client = new SessionClient(server.url);
    for (let i = 0; i < 4; i++) await client.login(clinic.email, `wrong ${i}`);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await client.login(clinic.email, `wrong again ${i}`)).status).toBe(401);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
  });

  it('limits failures per client address across many emails, without affecting other addresses', async () => {
    server = await startTestServer({ trustProxy: true, auth: { loginLimits: { perIp: 4 } } });
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const client = new SessionClient(server.url);
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < 4; i++) {
      expect((await client.login(`spray${i}@example.test`, 'Winter2026!', from('203.0.113.7'))).status).toBe(401);
    }
    const blocked = await client.login(clinic.email, clinic.password, from('203.0.113.7'));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await client.login(clinic.email, clinic.password, from('198.51.100.2'))).status).toBe(200);
  });

  it('counts parallel guesses before they finish: a burst of 12 gets exactly 5 password checks', async () => {
    server = await startTestServer();
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => new SessionClient(server!.url).login(clinic.email, `parallel guess ${i}`)),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });

  it('audits failed attempts but never a password', async () => {
    server = await startTestServer();
    const clinic = await seedAccount(server.runtime, { withKey: false });
    await new SessionClient(server.url).login(clinic.email, 'hunter2-is-not-it');
    const events = await server.runtime.audit.read({ email: clinic.email });
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain('hunter2');
  });
});
