import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../../server/team/team-service';
import { checkPostcode, seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';

const PASSWORD = 'correct horse battery staple';
let seq = 0;

describe('POST /api/v1/session/check-postcode (the console’s check by hand)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  /** An organisation with a key, and a signed-in member (the least role) of it. */
  async function memberOf(options: { rateLimit?: number } = {}) {
    const clinic = await seedAccount(server.runtime, options);
    const organisationId = server.runtime.accounts.membershipOf(clinic.accountId)!.organisation_id;
    const email = `gp${++seq}-${process.pid}@by-hand.example`;
    await server.runtime.team.add(OPERATOR, organisationId, email, PASSWORD, 'member');
    const client = new SessionClient(server.url);
    expect((await client.login(email, PASSWORD)).status).toBe(200);
    return { clinic, client };
  }

  it('answers exactly as the key’s check does, for any member', async () => {
    const { clinic, client } = await memberOf();
    for (const body of [{ postcode: '2480' }, { postcode: '2480', suburb: 'Lismore' }, { postcode: '2000' }]) {
      const byHand = await client.post('/api/v1/session/check-postcode', { body });
      const byKey = await checkPostcode(server, clinic.apiKey!, body);
      expect(byHand.status).toBe(byKey.status);
      expect(await byHand.text()).toBe(await byKey.text());
    }
  });

  it('refuses as the contract says: no session 401, another site 403, bad body 400, unknown postcode 404', async () => {
    const { client } = await memberOf();
    const anonymous = new SessionClient(server.url);
    const cases: [Promise<Response>, number, string][] = [
      [anonymous.post('/api/v1/session/check-postcode', { body: { postcode: '2480' } }), 401, 'unauthenticated'],
      [
        client.post('/api/v1/session/check-postcode', { body: { postcode: '2480' }, origin: 'https://evil.example' }),
        403,
        'forbidden_origin',
      ],
      [client.post('/api/v1/session/check-postcode', { body: { postcode: '٢٤٨٠' } }), 400, 'invalid_postcode'],
      [client.post('/api/v1/session/check-postcode', { body: '{"postcode":' }), 400, 'invalid_json'],
      [client.post('/api/v1/session/check-postcode', { body: { postcode: '0999' } }), 404, 'postcode_not_found'],
      [client.get('/api/v1/session/check-postcode'), 405, 'method_not_allowed'],
    ];
    for (const [pending, status, code] of cases) {
      const res = await pending;
      expect(res.status, code).toBe(status);
      expect((await json(res)).error.code).toBe(code);
    }
  });

  it('an inactive subscription is refused 403; the subscription’s limit applies; usage counts it by hand', async () => {
    const { clinic, client } = await memberOf({ rateLimit: 3 });
    for (let i = 0; i < 3; i++) {
      expect((await client.post('/api/v1/session/check-postcode', { body: { postcode: '2480' } })).status).toBe(200);
    }
    const limited = await client.post('/api/v1/session/check-postcode', { body: { postcode: '2480' } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    // Its own bucket: the key's checks are not spent by it.
    expect((await checkPostcode(server, clinic.apiKey!, { postcode: '2480' })).status).toBe(200);
    const usage = await json(await client.get('/api/v1/usage?days=1'));
    expect(usage.data.days[0].keys).toEqual(
      expect.arrayContaining([
        { key_prefix: 'by hand (console)', answered: 3, refused: 0, rate_limited: 1, batch_rows: 0 },
      ]),
    );

    await server.runtime.accounts.setSubscription(clinic.email, { status: 'inactive' });
    const refused = await client.post('/api/v1/session/check-postcode', { body: { postcode: '2480' } });
    expect(refused.status).toBe(403);
    expect((await json(refused)).error).toEqual({
      code: 'subscription_inactive',
      message: 'API subscription is inactive',
    });
  });
});
