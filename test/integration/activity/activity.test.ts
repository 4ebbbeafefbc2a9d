import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityData } from '../../../shared/api/activity';
import { successEnvelope } from '../../../shared/api/envelope';
import type { Role } from '../../../shared/api/team';
import { OPERATOR } from '../../../server/team/team-service';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { formatAuditEvents } from '../../../server/audit/format-audit';
import { startReceiver } from '../../helpers/webhook-receiver';
import { json, SessionClient } from '../auth/session-client';

/** The answer exactly as the schema says: a field the contract does not name (an IP, a key) fails the parse. */
const ACTIVITY = successEnvelope(ActivityData.extend({ events: ActivityData.shape.events.element.strict().array() }));
const PASSWORD = 'correct horse battery staple';

let seq = 0;
const emailFor = (what: string) => `${what}${++seq}-${process.pid}@activity.example`;

async function organisation(server: TestServer) {
  const owner = await seedAccount(server.runtime, { withKey: false });
  const organisationId = server.runtime.accounts.membershipOf(owner.accountId)!.organisation_id;
  const add = async (role: Role) => {
    const email = emailFor(role);
    const accountId = await server.runtime.team.add(OPERATOR, organisationId, email, PASSWORD, role);
    return { email, accountId, password: PASSWORD };
  };
  return { organisationId, owner, admin: await add('admin'), member: await add('member') };
}

async function signedIn(server: TestServer, person: { email: string; password: string }): Promise<SessionClient> {
  const client = new SessionClient(server.url);
  expect((await client.login(person.email, person.password)).status).toBe(200);
  return client;
}

async function activity(client: SessionClient, query = '') {
  const res = await client.get(`/api/v1/activity${query}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return ACTIVITY.parse(await json(res)).data.events;
}

describe('GET /api/v1/activity', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Webhooks to the test's receivers on 127.0.0.1.
    server = await startTestServer({ config: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers the organisation's events newest first: who, what, on whom; no address, no key", async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const created = await json(await owner.post('/api/v1/keys/generate'));
    const apiKey: string = created.data.api_key;
    const path = `/api/v1/team/members/${org.member.accountId}`;
    expect((await owner.request('PATCH', path, { body: { role: 'admin' } })).status).toBe(200);

    const events = await activity(owner);
    expect(events.slice(0, 3).map((e) => [e.event, e.actor, e.member_email, e.role, e.key_prefix, e.reason])).toEqual([
      ['member_role_changed', org.owner.email, org.member.email, 'admin', null, null],
      ['key_generated', org.owner.email, null, null, apiKey.slice(0, 12), null],
      ['login', org.owner.email, null, null, null, null],
    ]);
    // Older: the operator added the admin and the member (source admin, no actor).
    const added = events.filter((e) => e.event === 'member_added');
    expect(added.map((e) => [e.source, e.actor, e.member_email])).toEqual([
      ['admin', null, org.member.email],
      ['admin', null, org.admin.email],
    ]);
    const text = JSON.stringify(events);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain('127.0.0.1');
    for (let i = 1; i < events.length; i++) expect(events[i - 1]!.at >= events[i]!.at).toBe(true);
  });

  it('names who saved the catchment and who set, replaced, tested and removed the webhook, and where it points', async () => {
    const org = await organisation(server);
    const [first, second] = await Promise.all([startReceiver(), startReceiver()]);
    try {
      const admin = await signedIn(server, org.admin);
      const owner = await signedIn(server, org.owner);
      const webhook = (client: SessionClient, url: string) =>
        client.request('PUT', '/api/v1/webhook', { body: { url } });
      const catchment = { body: { postcodes: ['4000', '2480', '2000', '2480'] } };
      expect((await admin.request('PUT', '/api/v1/catchment', catchment)).status).toBe(200);
      // The path and query of a receiver's URL may hold its token: the trail keeps the host only.
      const set = await json(await webhook(admin, `${first.url}?token=path-secret-1`));
      const replaced = await json(await webhook(owner, `${second.url}/path-secret-2`));
      expect((await owner.post('/api/v1/webhook/test')).status).toBe(200);
      expect((await admin.request('DELETE', '/api/v1/webhook')).status).toBe(200);

      const events = (await activity(owner)).filter((e) => /^(catchment|webhook)_/.test(e.event));
      expect(events.map((e) => [e.event, e.source, e.actor, e.webhook_host, e.postcode_count])).toEqual([
        ['webhook_removed', 'web', org.admin.email, `127.0.0.1:${second.port}`, null],
        ['webhook_tested', 'web', org.owner.email, `127.0.0.1:${second.port}`, null],
        ['webhook_replaced', 'web', org.owner.email, `127.0.0.1:${second.port}`, null],
        ['webhook_set', 'web', org.admin.email, `127.0.0.1:${first.port}`, null],
        ['catchment_saved', 'web', org.admin.email, null, 3],
      ]);

      // The operator's trail (npm run admin -- audit) has them too, with the client address, and no secret either.
      const trail = await server.runtime.audit.read({ organisationId: org.organisationId });
      const table = formatAuditEvents(trail, 'the organisation');
      expect(table).toMatch(/webhook_replaced\s+web\s+127\.0\.0\.1\s+webhook host 127\.0\.0\.1:\d+/);
      expect(table).toMatch(/catchment_saved\s+web\s+127\.0\.0\.1\s+3 postcodes/);
      for (const text of [JSON.stringify(events), JSON.stringify(trail), table]) {
        for (const secret of [set.data.secret, replaced.data.secret, 'path-secret', '/hooks/dte']) {
          expect(text).not.toContain(secret);
        }
      }
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('carries the single sign-on provider through the Activity API and the operator’s audit table (issue #38)', async () => {
    const org = await organisation(server);
    const web = { source: 'web', organisation_id: org.organisationId, ip: '192.0.2.38' } as const;
    const member = { ...web, account_id: org.member.accountId, email: org.member.email };
    await server.runtime.audit.record({ ...member, event: 'sso_sign_in', sso_provider: 'microsoft' });
    await server.runtime.audit.record({
      ...member,
      event: 'sso_sign_in_refused',
      reason: 'sso_wrong_tenant',
      sso_provider: 'microsoft',
    });
    await server.runtime.audit.record({
      ...web,
      event: 'break_glass_sign_in',
      account_id: org.owner.accountId,
      email: org.owner.email,
      sso_provider: 'saml',
    });

    const events = (await activity(await signedIn(server, org.owner))).filter((e) => e.sso_provider);
    expect(events.map((e) => [e.event, e.actor, e.reason, e.sso_provider])).toEqual([
      ['break_glass_sign_in', org.owner.email, null, 'saml'],
      ['sso_sign_in_refused', org.member.email, 'sso_wrong_tenant', 'microsoft'],
      ['sso_sign_in', org.member.email, null, 'microsoft'],
    ]);
    // Events without a provider answer as they always did: no sso_provider key at all.
    expect((await activity(await signedIn(server, org.owner), '?limit=1'))[0]).not.toHaveProperty('sso_provider');

    const table = formatAuditEvents(await server.runtime.audit.read({ organisationId: org.organisationId }), 'it');
    expect(table).toMatch(/sso_sign_in_refused\s+web\s+192\.0\.2\.38\s+sso_wrong_tenant; sso microsoft/);
    expect(table).toMatch(/break_glass_sign_in\s+web\s+192\.0\.2\.38\s+sso saml/);
  });

  it('owners and admins read it; members get 403 forbidden_role; signed out 401', async () => {
    const org = await organisation(server);
    expect((await activity(await signedIn(server, org.admin))).length).toBeGreaterThan(0);
    const member = await signedIn(server, org.member);
    const refused = await member.get('/api/v1/activity');
    expect(refused.status).toBe(403);
    expect(await json(refused)).toEqual({
      success: false,
      error: { code: 'forbidden_role', message: 'Your role does not allow this' },
    });
    const anonymous = await new SessionClient(server.url).get('/api/v1/activity');
    expect(anonymous.status).toBe(401);
    expect((await json(anonymous)).error.code).toBe('unauthenticated');
  });

  it("never shows another organisation's events", async () => {
    const mine = await organisation(server);
    const theirs = await organisation(server);
    await signedIn(server, theirs.owner);
    const events = await activity(await signedIn(server, mine.owner));
    const people = new Set(events.flatMap((e) => [e.actor, e.member_email]));
    for (const person of [theirs.owner.email, theirs.admin.email, theirs.member.email]) {
      expect(people.has(person)).toBe(false);
    }
  });

  it('limit: the newest N; outside 1–500 or not a number is 400 invalid_request', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const all = await activity(owner);
    expect(all.length).toBeGreaterThan(2);
    expect(await activity(owner, '?limit=2')).toEqual(all.slice(0, 2));
    for (const limit of ['0', '501', 'abc', '1.5']) {
      const res = await owner.get(`/api/v1/activity?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect((await json(res)).error.code).toBe('invalid_request');
    }
    expect((await owner.post('/api/v1/activity')).status).toBe(405);
  });
});
