import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityData } from '../../../shared/api/activity';
import { successEnvelope } from '../../../shared/api/envelope';
import type { Role } from '../../../shared/api/team';
import { OPERATOR } from '../../../server/team/team-service';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
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
    server = await startTestServer();
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
