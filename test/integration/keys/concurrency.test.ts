import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPostcode, seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { storedKeys } from '../../helpers/stored-state';
import { json, SessionClient } from '../auth/session-client';

describe('key endpoints under concurrency', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  async function signedIn() {
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const client = new SessionClient(server.url);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
    return { clinic, client };
  }
  it('12 simultaneous generate calls: exactly one 201, eleven 409, one active key', async () => {
    const { clinic, client } = await signedIn();
    const responses = await Promise.all(Array.from({ length: 12 }, () => client.post('/api/v1/keys/generate')));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(11);
    const created = await json(responses.find((r) => r.status === 201)!);
    expect((await checkPostcode(server, created.data.api_key, { postcode: '4000' })).status).toBe(200);
    const stored = await readKeys(server, clinic.accountId);
    expect(stored.filter((k) => k.status === 'active')).toHaveLength(1);
    expect(stored).toHaveLength(1);
  });

  // Nine: with the generate, the ten key actions an account may take in an hour (key-churn.test.ts tests the limit).
  it('9 simultaneous regenerate calls: each rotation revokes the one before; only the last key works', async () => {
    const { clinic, client } = await signedIn();
    expect((await client.post('/api/v1/keys/generate')).status).toBe(201);
    const responses = await Promise.all(Array.from({ length: 9 }, () => client.post('/api/v1/keys/regenerate')));
    expect(responses.map((r) => r.status)).toEqual(Array(9).fill(201));
    const keys = await Promise.all(
      responses.map(async (r) => (await json(r)).data as { api_key: string; key_prefix: string }),
    );
    const stored = await readKeys(server, clinic.accountId);
    expect(stored).toHaveLength(10);
    const active = stored.filter((k) => k.status === 'active');
    expect(active).toHaveLength(1);
    const results = await Promise.all(
      keys.map(async (k) => (await checkPostcode(server, k.api_key, { postcode: '4000' })).status),
    );
    expect(results.filter((s) => s === 200)).toHaveLength(1);
    expect(results.filter((s) => s === 401)).toHaveLength(8);
  });

  it('simultaneous revoke calls: one 200, the rest 404', async () => {
    const { client } = await signedIn();
    expect((await client.post('/api/v1/keys/generate')).status).toBe(201);
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => client.post('/api/v1/keys/revoke')))).map(
      (r) => r.status,
    );
    expect(statuses.sort()).toEqual([200, 404, 404, 404, 404, 404]);
  });

  it('generate racing regenerate and revoke never leaves two active keys', async () => {
    const { clinic, client } = await signedIn();
    const calls = [
      'generate',
      'regenerate',
      'generate',
      'revoke',
      'generate',
      'regenerate',
      'generate',
      'revoke',
      'generate',
    ];
    await Promise.all(calls.map((c) => client.post(`/api/v1/keys/${c}`)));
    const stored = await readKeys(server, clinic.accountId);
    expect(stored.filter((k) => k.status === 'active').length).toBeLessThanOrEqual(1);
  });
});

/** The key records of an account as stored (read from keys.json or the database, not from the server's memory). */
function readKeys(server: TestServer, accountId: string): Promise<{ status: string }[]> {
  return storedKeys(server.dataDir, accountId);
}
