import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { changeAccountsElsewhere } from '../../helpers/stored-state';
import { successEnvelope } from '../../../shared/api/envelope';
import { KeyStatusData, NewKeyData, RevokedKeyData } from '../../../shared/api/keys';
import {
  checkPostcode,
  seedAccount,
  startTestServer,
  type SeededAccount,
  type TestServer,
} from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';

const NEW_KEY = successEnvelope(NewKeyData.strict());
const REVOKED = successEnvelope(RevokedKeyData.strict());
const STATUS = successEnvelope(KeyStatusData);
const KEY_FORMAT = /^sk_live_[0-9A-Za-z]{32,}$/;

function fakeClock(start = Date.now()) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('API key states: no key → active → rotated → revoked → generate again', () => {
  const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
  let server: TestServer;
  let clinic: SeededAccount;
  let client: SessionClient;

  beforeAll(async () => {
    server = await startTestServer({ clock: time.clock });
    clinic = await seedAccount(server.runtime, { withKey: false, rateLimit: 250 });
    client = new SessionClient(server.url);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
  });
  afterAll(() => server.close());

  const status = async () => {
    const res = await client.get('/api/v1/keys/status');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return STATUS.parse(await res.json()).data;
  };
  const check = async (key: string) => (await checkPostcode(server, key, { postcode: '4000' })).status;

  let first: NewKeyData;
  let second: NewKeyData;

  it('starts with no key, an active subscription and its rate limit', async () => {
    expect(await status()).toEqual({
      subscription: { plan: 'Clinic-Wide Access', status: 'active', expires_at: null },
      key: { status: 'none', key_prefix: null, created_at: null, last_used_at: null },
      rate_limit: { limit: 250, window_seconds: 60 },
    });
    expect((await json(await client.post('/api/v1/keys/revoke'))).error).toEqual({
      code: 'no_active_key',
      message: 'No active API key',
    });
    const regen = await client.post('/api/v1/keys/regenerate');
    expect(regen.status).toBe(404);
    expect((await json(regen)).error.code).toBe('no_active_key');
  });

  it('generate: 201 with the raw key once, not cacheable; the key works at once', async () => {
    const res = await client.post('/api/v1/keys/generate');
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    first = NEW_KEY.parse(await res.json()).data;
    expect(first.api_key).toMatch(KEY_FORMAT);
    expect(first.key_prefix).toBe(first.api_key.slice(0, 12));
    expect(first.key_prefix).toMatch(/^sk_live_[0-9A-Za-z]{4}$/);
    expect(first.created_at).toBe(time.clock().toISOString());
    expect(await check(first.api_key)).toBe(200);
  });

  it('status afterwards shows the prefix and timestamps only, never the key', async () => {
    time.advance(60_000);
    const res = await client.get('/api/v1/keys/status');
    const text = await res.text();
    expect(text).not.toContain(first.api_key);
    const data = STATUS.parse(JSON.parse(text)).data;
    expect(data.key).toEqual({
      status: 'active',
      key_prefix: first.key_prefix,
      created_at: first.created_at,
      last_used_at: expect.any(String),
    });
    expect(Date.parse(data.key.last_used_at!)).toBe(Date.parse(first.created_at)); // the check made just after creation
  });

  it('generate again while a key is active: 409 key_exists, and the key keeps working', async () => {
    const res = await client.post('/api/v1/keys/generate');
    expect(res.status).toBe(409);
    expect(await json(res)).toEqual({
      success: false,
      error: { code: 'key_exists', message: 'An active API key already exists' },
    });
    expect(await check(first.api_key)).toBe(200);
  });

  it('regenerate: 201 with a new key; the old key is refused on the very next request', async () => {
    const res = await client.post('/api/v1/keys/regenerate');
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    second = NEW_KEY.parse(await res.json()).data;
    expect(second.api_key).toMatch(KEY_FORMAT);
    expect(second.api_key).not.toBe(first.api_key);
    const old = await checkPostcode(server, first.api_key, { postcode: '4000' });
    expect(old.status).toBe(401);
    expect(await json(old)).toEqual({ success: false, error: { code: 'invalid_api_key', message: 'Invalid API key' } });
    expect(await check(second.api_key)).toBe(200);
    expect((await status()).key).toMatchObject({
      status: 'active',
      key_prefix: second.key_prefix,
      created_at: second.created_at,
    });
  });

  it('revoke: 200 with revoked_at; the key is refused at once and for good', async () => {
    time.advance(60_000);
    const res = await client.post('/api/v1/keys/revoke');
    expect(res.status).toBe(200);
    const revoked = REVOKED.parse(await res.json()).data;
    expect(revoked.revoked_at).toBe(time.clock().toISOString());
    expect(await check(second.api_key)).toBe(401);
    expect((await status()).key).toMatchObject({
      status: 'revoked',
      key_prefix: second.key_prefix,
      created_at: second.created_at,
    });
    expect((await client.post('/api/v1/keys/revoke')).status).toBe(404);
    expect((await client.post('/api/v1/keys/regenerate')).status).toBe(404);
    expect(await check(second.api_key)).toBe(401);
  });

  it('generate after revoke: a new active key; no earlier key comes back', async () => {
    const res = await client.post('/api/v1/keys/generate');
    expect(res.status).toBe(201);
    const third = NEW_KEY.parse(await res.json()).data;
    expect(await check(third.api_key)).toBe(200);
    expect(await check(first.api_key)).toBe(401);
    expect(await check(second.api_key)).toBe(401);
    expect((await status()).key).toMatchObject({ status: 'active', key_prefix: third.key_prefix });
    const keys = server.runtime.keys;
    expect(keys.currentKey(server.runtime.accounts.subscriptionOf(clinic.accountId)!.id)?.prefix).toBe(
      third.key_prefix,
    );
  });

  it('records each key event in the audit log with the prefix only', async () => {
    const events = await server.runtime.audit.read({ accountId: clinic.accountId });
    expect(events.filter((e) => e.event.startsWith('key_')).map((e) => [e.event, e.key_prefix])).toEqual([
      ['key_generated', first.key_prefix],
      ['key_regenerated', second.key_prefix],
      ['key_revoked', second.key_prefix],
      ['key_generated', expect.stringMatching(/^sk_live_/)],
    ]);
  });
});

describe('key endpoints without a session', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answer 401 unauthenticated, also with an x-api-key instead of a session', async () => {
    const seeded = await seedAccount(server.runtime);
    for (const [method, path] of [
      ['POST', '/api/v1/keys/generate'],
      ['POST', '/api/v1/keys/regenerate'],
      ['POST', '/api/v1/keys/revoke'],
      ['GET', '/api/v1/keys/status'],
    ] as const) {
      const res = await new SessionClient(server.url).request(method, path, {
        headers: { 'x-api-key': seeded.apiKey! },
      });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(await json(res)).toEqual({
        success: false,
        error: { code: 'unauthenticated', message: 'Sign in required' },
      });
    }
    // The key was not touched by any of that.
    expect((await checkPostcode(server, seeded.apiKey, { postcode: '4000' })).status).toBe(200);
  });

  it('answer 405 for the wrong method once signed in', async () => {
    const seeded = await seedAccount(server.runtime, { withKey: false });
    const client = new SessionClient(server.url);
    await client.login(seeded.email, seeded.password);
    const res = await client.get('/api/v1/keys/generate');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await client.post('/api/v1/keys/status')).status).toBe(405);
  });
});

describe('subscription states', () => {
  const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock: time.clock });
  });
  afterAll(() => server.close());

  async function signedIn(account: SeededAccount): Promise<SessionClient> {
    const client = new SessionClient(server.url);
    expect((await client.login(account.email, account.password)).status).toBe(200);
    return client;
  }

  it('inactive subscription: status says inactive; generate and regenerate 403; revoke still works', async () => {
    const clinic = await seedAccount(server.runtime, { status: 'inactive' }); // has a key from before
    const client = await signedIn(clinic);
    const data = STATUS.parse(await json(await client.get('/api/v1/keys/status'))).data;
    expect(data.subscription).toEqual({ plan: 'Clinic-Wide Access', status: 'inactive', expires_at: null });
    expect(data.key.status).toBe('active');

    const regen = await client.post('/api/v1/keys/regenerate');
    expect(regen.status).toBe(403);
    expect(await json(regen)).toEqual({
      success: false,
      error: { code: 'subscription_inactive', message: 'API subscription is inactive' },
    });
    expect((await client.post('/api/v1/keys/revoke')).status).toBe(200);
    const gen = await client.post('/api/v1/keys/generate');
    expect(gen.status).toBe(403);
    expect((await json(gen)).error.code).toBe('subscription_inactive');
  });

  it('expired subscription counts as inactive', async () => {
    const clinic = await seedAccount(server.runtime, { withKey: false, expires: '2026-11-21' });
    const client = await signedIn(clinic);
    const data = STATUS.parse(await json(await client.get('/api/v1/keys/status'))).data;
    expect(data.subscription.status).toBe('inactive');
    expect(data.subscription.expires_at).toBe('2026-11-21T13:00:00.000Z'); // end of 21 Nov in Sydney (AEDT)
    expect((await client.post('/api/v1/keys/generate')).status).toBe(403);
  });

  it('an account without any subscription record is inactive with the default limit', async () => {
    const clinic = await seedAccount(server.runtime, { withKey: false });
    // Another process (an older tool, a hand edit) removes the subscription record; the server picks that up.
    await changeAccountsElsewhere(server.dataDir, (d) => {
      const organisation = d.members.find((m) => m.account_id === clinic.accountId)!.organisation_id;
      d.subscriptions = d.subscriptions.filter((s) => s.organisation_id !== organisation);
    });
    await vi.waitFor(() => expect(server.runtime.accounts.subscriptionOf(clinic.accountId)).toBeUndefined(), {
      timeout: 5_000,
    });
    const client = await signedIn(clinic);
    const data = STATUS.parse(await json(await client.get('/api/v1/keys/status'))).data;
    expect(data).toEqual({
      subscription: { plan: 'Clinic-Wide Access', status: 'inactive', expires_at: null },
      key: { status: 'none', key_prefix: null, created_at: null, last_used_at: null },
      rate_limit: { limit: 100, window_seconds: 60 },
    });
    expect((await client.post('/api/v1/keys/generate')).status).toBe(403);
  });

  it('a subscription activated later (admin CLI) lets the same session generate', async () => {
    const clinic = await seedAccount(server.runtime, { withKey: false, status: 'inactive' });
    const client = await signedIn(clinic);
    expect((await client.post('/api/v1/keys/generate')).status).toBe(403);
    await server.runtime.accounts.setSubscription(clinic.email, { status: 'active' });
    expect((await client.post('/api/v1/keys/generate')).status).toBe(201);
  });
});
