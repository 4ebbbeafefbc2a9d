import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successEnvelope } from '../../../shared/api/envelope';
import { UsageData } from '../../../shared/api/usage';
import { addDays, sydneyToday } from '../../../shared/domain/dates';
import { OPERATOR } from '../../../server/team/team-service';
import { testBackend } from '../../helpers/shared-backends';
import { checkPostcode, seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { json, SessionClient } from '../auth/session-client';

const USAGE = successEnvelope(UsageData.strict());

async function usageOf(server: TestServer, apiKey: string, query = ''): Promise<UsageData> {
  const res = await fetch(`${server.url}/api/v1/usage${query}`, { headers: { 'x-api-key': apiKey } });
  expect(res.status).toBe(200);
  return USAGE.parse(await res.json()).data;
}

/** `answered` good checks, `refused` bad postcodes, then checks until `rateLimited` were refused 429. */
async function checks(server: TestServer, apiKey: string, answered: number, refused: number): Promise<void> {
  for (let i = 0; i < answered; i++) {
    expect((await checkPostcode(server, apiKey, { postcode: '2480' })).status).toBe(200);
  }
  for (let i = 0; i < refused; i++) {
    expect((await checkPostcode(server, apiKey, { postcode: '24x0' })).status).toBe(400);
  }
}

describe('GET /api/v1/usage', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('counts each key request by how it ended, per Sydney day; any member reads it, by session or by key', async () => {
    const clinic = await seedAccount(server.runtime, { rateLimit: 8 });
    await checks(server, clinic.apiKey!, 3, 2);
    // 5 counted so far; 3 more allowed in the minute, then 429s.
    for (let i = 0; i < 5; i++) await checkPostcode(server, clinic.apiKey!, { postcode: '2480' });
    // Read by the owner's session: a read with the key would itself be over the limit.
    const owner = new SessionClient(server.url);
    expect((await owner.login(clinic.email, clinic.password)).status).toBe(200);
    const data = USAGE.parse(await json(await owner.get('/api/v1/usage?days=7'))).data;
    const today = sydneyToday(new Date());
    expect(data.to).toBe(today);
    expect(data.from).toBe(addDays(today, -6));
    expect(data.days.map((d) => d.date)).toEqual(Array.from({ length: 7 }, (_, i) => addDays(today, i - 6)));
    expect(data.totals).toEqual({ answered: 6, refused: 2, rate_limited: 2, batch_rows: 0 });
    const day = data.days.at(-1)!;
    expect(day).toMatchObject({ answered: 6, refused: 2, rate_limited: 2 });
    expect(day.keys).toEqual([
      { key_prefix: clinic.apiKey!.slice(0, 12), answered: 6, refused: 2, rate_limited: 2, batch_rows: 0 },
    ]);

    // A member reads it too; a read with the key over the limit is counted as rate-limited once answered.
    expect((await fetch(`${server.url}/api/v1/usage`, { headers: { 'x-api-key': clinic.apiKey! } })).status).toBe(429);
    const organisationId = server.runtime.accounts.membershipOf(clinic.accountId)!.organisation_id;
    const email = `gp-${process.pid}@usage.example`;
    await server.runtime.team.add(OPERATOR, organisationId, email, 'correct horse battery staple', 'member');
    const member = new SessionClient(server.url);
    expect((await member.login(email, 'correct horse battery staple')).status).toBe(200);
    const bySession = USAGE.parse(await json(await member.get('/api/v1/usage'))).data;
    expect(bySession.days).toHaveLength(30);
    expect(bySession.totals).toEqual({ answered: 6, refused: 2, rate_limited: 3, batch_rows: 0 });
  });

  it('a rotated key is told apart from its successor; another organisation sees none of it', async () => {
    const clinic = await seedAccount(server.runtime);
    const other = await seedAccount(server.runtime);
    await checks(server, clinic.apiKey!, 2, 0);
    const rotated = await server.runtime.keys.regenerate(clinic.accountId);
    await checks(server, rotated.api_key, 1, 1);
    const data = await usageOf(server, rotated.api_key, '?days=1');
    expect(data.days[0]!.keys).toEqual(
      expect.arrayContaining([
        { key_prefix: clinic.apiKey!.slice(0, 12), answered: 2, refused: 0, rate_limited: 0, batch_rows: 0 },
        { key_prefix: rotated.key_prefix, answered: 1, refused: 1, rate_limited: 0, batch_rows: 0 },
      ]),
    );
    expect((await usageOf(server, other.apiKey!, '?days=1')).totals).toEqual({
      answered: 0,
      refused: 0,
      rate_limited: 0,
      batch_rows: 0,
    });
  });

  it('as CSV: one row per day and key, zero days included', async () => {
    const clinic = await seedAccount(server.runtime);
    await checks(server, clinic.apiKey!, 2, 1);
    const subscription = server.runtime.accounts.subscriptionOf(clinic.accountId)!.id;
    server.runtime.usage.countRows(subscription, server.runtime.keys.currentKey(subscription)!.id, 7, new Date());
    const res = await fetch(`${server.url}/api/v1/usage?days=3&format=csv`, {
      headers: { 'x-api-key': clinic.apiKey! },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="usage-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv"$/,
    );
    const today = sydneyToday(new Date());
    expect((await res.text()).split('\r\n')).toEqual([
      'date,key_prefix,answered,refused,rate_limited,batch_rows',
      `${addDays(today, -2)},,0,0,0,0`,
      `${addDays(today, -1)},,0,0,0,0`,
      `${today},${clinic.apiKey!.slice(0, 12)},2,1,0,7`,
      '',
    ]);
  });

  it('refuses bad queries with 400 invalid_request', async () => {
    const clinic = await seedAccount(server.runtime);
    for (const query of ['?days=0', '?days=401', '?days=abc', '?days=٣', '?days=1.5', '?format=xml', '?foo=1']) {
      const res = await fetch(`${server.url}/api/v1/usage${query}`, { headers: { 'x-api-key': clinic.apiKey! } });
      expect(res.status, query).toBe(400);
      expect((await json(res)).error.code, query).toBe('invalid_request');
    }
    const res = await fetch(`${server.url}/api/v1/usage`);
    expect(res.status).toBe(401);
  });
});

describe('usage kept across restarts and instances', () => {
  it('is flushed at stop and read back after a restart', async () => {
    const dataDir = await tempDir();
    const first = await startTestServer({ dataDir });
    const clinic = await seedAccount(first.runtime);
    await checks(first, clinic.apiKey!, 4, 1);
    const subscription = first.runtime.accounts.subscriptionOf(clinic.accountId)!.id;
    first.runtime.usage.countRows(subscription, 'by-hand', 120, new Date());
    first.runtime.usage.countRows(subscription, 'by-hand', 5, new Date());
    await first.close();
    const second = await startTestServer({ dataDir, declarations: false });
    try {
      // The GET itself is not in its own answer: counted once answered.
      expect((await usageOf(second, clinic.apiKey!, '?days=1')).totals).toEqual({
        answered: 4,
        refused: 1,
        rate_limited: 0,
        batch_rows: 125,
      });
    } finally {
      await second.close();
    }
  });

  it.skipIf(testBackend() === 'json')('two instances counting at once add up exactly', async () => {
    const dataDir = await tempDir();
    const a = await startTestServer({ dataDir });
    const b = await startTestServer({ dataDir, declarations: false });
    try {
      const clinic = await seedAccount(a.runtime, { rateLimit: 1000 });
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          checkPostcode(i % 2 ? a : b, clinic.apiKey!, { postcode: i % 5 ? '2480' : 'x' }),
        ),
      );
      const subscription = a.runtime.accounts.subscriptionOf(clinic.accountId)!.id;
      for (const [i, server] of [a, b, a, b].entries()) {
        server.runtime.usage.countRows(subscription, 'k', 10 + i, new Date());
      }
      await Promise.all([a.runtime.usage.flush(), b.runtime.usage.flush()]);
      expect((await usageOf(a, clinic.apiKey!, '?days=1')).totals).toEqual({
        answered: 32,
        refused: 8,
        rate_limited: 0,
        batch_rows: 46,
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('drops days past 400 (the purge), keeps day 400', async () => {
    let now = Date.parse('2026-03-01T02:00:00.000Z');
    const server = await startTestServer({ clock: () => new Date(now) });
    try {
      const clinic = await seedAccount(server.runtime);
      await checks(server, clinic.apiKey!, 1, 0);
      await server.runtime.usage.flush();
      const subscription = server.runtime.accounts.subscriptionOf(clinic.accountId)!.id;
      const answered = async () => (await server.runtime.usage.view(subscription, 400, () => 'k')).totals.answered;
      now += 399 * 86_400_000;
      await server.runtime.usage.purge();
      expect(await answered()).toBe(1);
      now += 86_400_000;
      await server.runtime.usage.purge();
      // Out of the 400 days shown, and gone from the store: a view ending the day before still finds nothing.
      now -= 86_400_000;
      expect(await answered()).toBe(0);
    } finally {
      await server.close();
    }
  });
});
