import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonLinesAuditLog } from '../../../server/audit/audit-log';
import { runAdmin } from '../../helpers/run-cli';
import { tempDir } from '../../helpers/temp-dir';
import {
  checkPostcode,
  openDataDir,
  seedAccount,
  startTestServer,
  type SeededAccount,
  type TestServer,
} from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';

/** The limit of issue #13: ten key actions (generate, regenerate, revoke) per account per hour. */
const LIMIT = 10;
const HOUR_MS = 3600_000;
const RATE_LIMITED = { success: false, error: { code: 'rate_limited', message: 'Rate limit exceeded' } };
/** Revoked records kept in keys.json per account (the most recent ones); older ones go to keys-archive.jsonl. */
const KEEP_REVOKED = 10;
/** Long sessions, so that a clock moved by hours does not sign the test's browser out. */
const LONG_SESSIONS = { idleTimeoutMs: 48 * HOUR_MS, absoluteTimeoutMs: 96 * HOUR_MS };

interface StoredKey {
  id: string;
  account_id: string;
  prefix: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
}

function fakeClock(start: number) {
  let now = start;
  return {
    clock: () => new Date(now),
    advance: (ms: number) => (now += ms),
    set: (ms: number) => (now = ms),
    now: () => now,
  };
}

async function keysOnDisk(dataDir: string): Promise<StoredKey[]> {
  return (JSON.parse(await readFile(path.join(dataDir, 'keys.json'), 'utf8')) as { keys: StoredKey[] }).keys;
}

async function archiveOnDisk(dataDir: string): Promise<StoredKey[]> {
  const text = await readFile(path.join(dataDir, 'keys-archive.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as StoredKey);
}

async function signIn(server: TestServer, account: SeededAccount): Promise<SessionClient> {
  const client = new SessionClient(server.url);
  expect((await client.login(account.email, account.password)).status).toBe(200);
  return client;
}

describe('key churn limit: 10 generate/regenerate/revoke per account per hour', () => {
  const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
  let dataDir: string;
  let server: TestServer;

  beforeAll(async () => {
    dataDir = await tempDir('dte-churn-');
    server = await startTestServer({ dataDir, clock: time.clock, auth: LONG_SESSIONS });
  });
  afterAll(() => server.close());

  it('the 11th action within the hour gets 429 rate_limited with Retry-After and changes nothing; the limit survives a restart', async () => {
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const client = await signIn(server, clinic);
    const firstAt = time.now();
    expect((await client.post('/api/v1/keys/generate')).status).toBe(201);
    for (let i = 1; i < LIMIT; i++) {
      time.advance(60_000);
      const action = ['generate', 'regenerate', 'revoke'][i % 3];
      expect((await client.post(`/api/v1/keys/${action}`)).status).toBeLessThan(300);
    }
    time.advance(60_000);
    const before = await keysOnDisk(dataDir);
    const statusBefore = (await json(await client.get('/api/v1/keys/status'))).data;

    for (const action of ['regenerate', 'revoke', 'generate']) {
      const res = await client.post(`/api/v1/keys/${action}`);
      expect({ action, status: res.status }).toEqual({ action, status: 429 });
      expect(await json(res)).toEqual(RATE_LIMITED);
      // Until the first of the ten leaves the window: one hour after it.
      expect(res.headers.get('retry-after')).toBe(String((firstAt + HOUR_MS - time.now()) / 1000));
    }
    expect(await keysOnDisk(dataDir)).toEqual(before);
    expect((await json(await client.get('/api/v1/keys/status'))).data).toEqual(statusBefore);

    // A restart does not reset the count.
    await server.close();
    server = await startTestServer({ dataDir, clock: time.clock, auth: LONG_SESSIONS, declarations: false });
    const again = await signIn(server, clinic);
    expect((await again.post('/api/v1/keys/regenerate')).status).toBe(429);

    // One second short of the hour it is still refused; at the hour the oldest action has left the window.
    time.set(firstAt + HOUR_MS - 1_000);
    const last = await again.post('/api/v1/keys/regenerate');
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('1');
    time.set(firstAt + HOUR_MS);
    expect((await again.post('/api/v1/keys/regenerate')).status).toBe(201);
    expect((await again.post('/api/v1/keys/regenerate')).status).toBe(429);
  });

  it('refused calls (409, 404) do not count, and the limit is per account', async () => {
    const [one, two] = [
      await seedAccount(server.runtime, { withKey: false }),
      await seedAccount(server.runtime, { withKey: false }),
    ];
    const a = await signIn(server, one);
    const b = await signIn(server, two);
    for (let i = 0; i < 2 * LIMIT; i++) expect((await a.post('/api/v1/keys/revoke')).status).toBe(404);
    expect((await a.post('/api/v1/keys/generate')).status).toBe(201);
    for (let i = 0; i < 2 * LIMIT; i++) expect((await a.post('/api/v1/keys/generate')).status).toBe(409);
    for (let i = 1; i < LIMIT; i++) expect((await a.post('/api/v1/keys/regenerate')).status).toBe(201);
    expect((await a.post('/api/v1/keys/regenerate')).status).toBe(429);
    expect((await b.post('/api/v1/keys/generate')).status).toBe(201);
  });

  it('concurrent calls through two servers sharing DATA_DIR cannot exceed the limit', async () => {
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const second = await startTestServer({ dataDir, clock: time.clock, auth: LONG_SESSIONS, declarations: false });
    try {
      const viaFirst = await signIn(server, clinic);
      const viaSecond = await signIn(second, clinic);
      expect((await viaFirst.post('/api/v1/keys/generate')).status).toBe(201);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? viaFirst : viaSecond).post('/api/v1/keys/regenerate')),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(LIMIT - 1);
      expect(statuses.filter((s) => s === 429)).toHaveLength(20 - (LIMIT - 1));
      const mine = (await keysOnDisk(dataDir)).filter((k) => k.account_id === clinic.accountId);
      expect(mine).toHaveLength(LIMIT);
      expect(mine.filter((k) => k.status === 'active')).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it('the admin CLI’s create-key is an operator action: not limited', async () => {
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const client = await signIn(server, clinic);
    expect((await client.post('/api/v1/keys/generate')).status).toBe(201);
    for (let i = 1; i < LIMIT; i++) {
      expect((await client.post(i % 2 ? '/api/v1/keys/revoke' : '/api/v1/keys/generate')).status).toBeLessThan(300);
    }
    expect((await client.post('/api/v1/keys/generate')).status).toBe(429);
    const created = await runAdmin(dataDir, ['create-key', '--email', clinic.email]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^sk_live_[0-9A-Za-z]{32,}\n$/);
  });
});

describe('revoked key records do not grow keys.json without bound', () => {
  it('a keys.json with thousands of revoked records is pruned when the store opens; the archive and the audit trail keep them', async () => {
    const dataDir = await tempDir('dte-prune-');
    const setup = await openDataDir(dataDir);
    const churned = await seedAccount(setup, { withKey: true });
    const quiet = await seedAccount(setup, { withKey: false });
    const quietSubscription = setup.accounts.subscriptionOf(quiet.accountId)!.id;
    await setup.close();

    // What four sessions left behind in three minutes before the limit: thousands of revoked keys, each with the
    // audit event its rotation wrote.
    const file = JSON.parse(await readFile(path.join(dataDir, 'keys.json'), 'utf8')) as { keys: StoredKey[] };
    const active = file.keys.find((k) => k.account_id === churned.accountId)!;
    const start = Date.parse('2026-01-05T00:00:00.000Z');
    const churn: StoredKey[] = Array.from({ length: 3000 }, (_, i) => ({
      ...active,
      id: randomUUID(),
      hash: randomBytes(32).toString('hex'),
      prefix: `sk_live_${randomBytes(3).toString('base64url').replace(/[-_]/g, 'x')}`,
      status: 'revoked' as const,
      created_at: new Date(start + i * 50).toISOString(),
      revoked_at: new Date(start + (i + 1) * 50).toISOString(),
    }));
    const quietRevoked: StoredKey[] = Array.from({ length: 3 }, (_, i) => ({
      ...active,
      id: randomUUID(),
      account_id: quiet.accountId,
      subscription_id: quietSubscription,
      hash: randomBytes(32).toString('hex'),
      prefix: `sk_live_q${i}x${i}`,
      status: 'revoked' as const,
      created_at: new Date(start + i * 1000).toISOString(),
      revoked_at: new Date(start + (i + 1) * 1000).toISOString(),
    }));
    const all = [...churn, ...quietRevoked, active];
    await writeFile(path.join(dataDir, 'keys.json'), JSON.stringify({ schema_version: 1, keys: all }, null, 2));
    const sizeBefore = (await stat(path.join(dataDir, 'keys.json'))).size;
    const audit = JsonLinesAuditLog.inDataDir(dataDir);
    const lines = churn.map((k) =>
      JSON.stringify({
        at: k.revoked_at,
        event: 'key_regenerated',
        source: 'web',
        account_id: churned.accountId,
        email: churned.email,
        ip: '127.0.0.1',
        key_prefix: k.prefix,
      }),
    );
    await writeFile(audit.file, lines.join('\n') + '\n', { flag: 'a' });

    const server = await startTestServer({ dataDir });
    try {
      const kept = await keysOnDisk(dataDir);
      // Only the most recent revoked records of the churned account stay; the quiet account is untouched.
      const keptChurned = kept.filter((k) => k.account_id === churned.accountId);
      expect(keptChurned.filter((k) => k.status === 'active').map((k) => k.id)).toEqual([active.id]);
      expect(keptChurned.filter((k) => k.status === 'revoked').map((k) => k.id)).toEqual(
        churn.slice(-KEEP_REVOKED).map((k) => k.id),
      );
      expect(kept.filter((k) => k.account_id === quiet.accountId).map((k) => k.id)).toEqual(
        quietRevoked.map((k) => k.id),
      );
      expect((await stat(path.join(dataDir, 'keys.json'))).size).toBeLessThan(sizeBefore / 100);
      // Nothing is lost: every pruned record is in the archive, whole.
      const archived = await archiveOnDisk(dataDir);
      expect(archived.map((k) => k.id)).toEqual(churn.slice(0, -KEEP_REVOKED).map((k) => k.id));
      expect(archived).toEqual(churn.slice(0, -KEEP_REVOKED));
      expect(new Set([...kept, ...archived].map((k) => k.id))).toEqual(new Set(all.map((k) => k.id)));

      // Key status and checks are unchanged.
      expect((await checkPostcode(server, churned.apiKey, { postcode: '4000' })).status).toBe(200);
      const client = await signIn(server, churned);
      expect((await json(await client.get('/api/v1/keys/status'))).data.key).toMatchObject({
        status: 'active',
        key_prefix: active.prefix,
      });
      // The audit trail (what `npm run admin -- audit` reads) still lists every pruned key.
      const trail = new Set(
        (await audit.read({ email: churned.email, accountId: churned.accountId })).map((e) => e.key_prefix),
      );
      for (const k of archived) expect(trail.has(k.prefix), k.prefix).toBe(true);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('rotating a key again and again keeps keys.json small: older revoked records go to the archive', async () => {
    const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
    const dataDir = await tempDir('dte-prune-');
    const server = await startTestServer({ dataDir, clock: time.clock, auth: LONG_SESSIONS });
    try {
      const clinic = await seedAccount(server.runtime, { withKey: false });
      const client = await signIn(server, clinic);
      const prefixes: string[] = [];
      for (let i = 0; i < 4 * LIMIT; i++) {
        time.advance(HOUR_MS / LIMIT);
        const res = await client.post(i === 0 ? '/api/v1/keys/generate' : '/api/v1/keys/regenerate');
        expect(res.status).toBe(201);
        prefixes.push((await json(res)).data.key_prefix);
      }
      const kept = (await keysOnDisk(dataDir)).filter((k) => k.account_id === clinic.accountId);
      expect(kept.filter((k) => k.status === 'revoked')).toHaveLength(KEEP_REVOKED);
      expect(kept.filter((k) => k.status === 'active')).toHaveLength(1);
      const archived = await archiveOnDisk(dataDir);
      expect(archived).toHaveLength(4 * LIMIT - KEEP_REVOKED - 1);
      expect([...archived, ...kept].map((k) => k.prefix)).toEqual(prefixes);
      // Revoke, then the status still reports the most recent key as revoked.
      time.advance(HOUR_MS);
      expect((await client.post('/api/v1/keys/revoke')).status).toBe(200);
      expect((await json(await client.get('/api/v1/keys/status'))).data.key).toMatchObject({
        status: 'revoked',
        key_prefix: prefixes.at(-1),
      });
      const events = await server.runtime.audit.read({ accountId: clinic.accountId });
      for (const prefix of prefixes) expect(events.some((e) => e.key_prefix === prefix)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
