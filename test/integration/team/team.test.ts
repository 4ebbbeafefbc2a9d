import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../../shared/api/team';
import { TeamData } from '../../../shared/api/team';
import { successEnvelope } from '../../../shared/api/envelope';
import { OPERATOR } from '../../../server/team/team-service';
import { testBackend } from '../../helpers/shared-backends';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { organisation, PASSWORD, signedIn, twoInstances, type Org } from './team-world';

const TEAM = successEnvelope(TeamData.strict());

/** One write each role is tried against: what it needs first, the request, and what a role that may gets. */
interface Write {
  name: string;
  withKey?: boolean;
  prepare?: (server: TestServer, org: Org, owner: SessionClient) => Promise<void>;
  request: (client: SessionClient, org: Org) => Promise<Response>;
  allowed: number;
}

const WEBHOOK_URL = 'https://hooks.clinic.example/dte';

const WRITES: Write[] = [
  { name: 'POST /keys/generate', request: (c) => c.post('/api/v1/keys/generate'), allowed: 201 },
  { name: 'POST /keys/regenerate', withKey: true, request: (c) => c.post('/api/v1/keys/regenerate'), allowed: 201 },
  { name: 'POST /keys/revoke', withKey: true, request: (c) => c.post('/api/v1/keys/revoke'), allowed: 200 },
  {
    name: 'PUT /catchment',
    request: (c) => c.request('PUT', '/api/v1/catchment', { body: { postcodes: ['2480'] } }),
    allowed: 200,
  },
  {
    name: 'PUT /webhook',
    request: (c) => c.request('PUT', '/api/v1/webhook', { body: { url: WEBHOOK_URL } }),
    allowed: 200,
  },
  {
    name: 'DELETE /webhook',
    prepare: async (_s, _o, owner) => {
      expect((await owner.request('PUT', '/api/v1/webhook', { body: { url: WEBHOOK_URL } })).status).toBe(200);
    },
    request: (c) => c.request('DELETE', '/api/v1/webhook'),
    allowed: 200,
  },
  {
    name: "PATCH /team/members/{id} (a member's role)",
    request: (c, org) =>
      c.request('PATCH', `/api/v1/team/members/${org.member.accountId}`, { body: { role: 'admin' } }),
    allowed: 200,
  },
  {
    name: 'DELETE /team/members/{id} (a member)',
    request: (c, org) => c.request('DELETE', `/api/v1/team/members/${org.member.accountId}`),
    allowed: 200,
  },
];

/** Who may do each write: owners and admins all of them; members none. */
const MAY: Record<Role, boolean> = { owner: true, admin: true, member: false };

describe('roles × writes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const write of WRITES) {
    for (const role of ['owner', 'admin', 'member'] as const) {
      it(`${write.name} as ${role}: ${MAY[role] ? write.allowed : '403 forbidden_role'}`, async () => {
        const org = await organisation(server, { withKey: write.withKey });
        const owner = await signedIn(server, org.owner);
        await write.prepare?.(server, org, owner);
        const client = role === 'owner' ? owner : await signedIn(server, org[role]);
        const res = await write.request(client, org);
        const body = await json(res);
        if (MAY[role]) {
          expect(res.status, JSON.stringify(body)).toBe(write.allowed);
        } else {
          expect(res.status).toBe(403);
          expect(body).toEqual({
            success: false,
            error: { code: 'forbidden_role', message: 'Your role does not allow this' },
          });
        }
      });
    }
  }

  it('every role reads: key status, catchment, alerts, webhook and team', async () => {
    const org = await organisation(server, { withKey: true });
    for (const person of [org.owner, org.admin, org.member]) {
      const client = await signedIn(server, person);
      for (const path of ['/api/v1/keys/status', '/api/v1/catchment', '/api/v1/alerts', '/api/v1/webhook']) {
        expect((await client.get(path)).status, path).toBe(200);
      }
      const team = TEAM.parse(await json(await client.get('/api/v1/team'))).data;
      expect(team.members.map((m) => [m.email, m.role])).toEqual([
        [org.owner.email, 'owner'],
        [org.admin.email, 'admin'],
        [org.member.email, 'member'],
      ]);
    }
  });

  it("the session says the member's organisation and role", async () => {
    const org = await organisation(server);
    const client = await signedIn(server, org.member);
    const { data } = await json(await client.get('/api/v1/auth/session'));
    expect(data.organisation).toEqual({ id: org.organisationId, name: org.owner.email, role: 'member' });
  });

  it('admins never touch an owner nor make one; only owners rename the organisation', async () => {
    const org = await organisation(server);
    const admin = await signedIn(server, org.admin);
    const ownerPath = `/api/v1/team/members/${org.owner.accountId}`;
    for (const res of [
      await admin.request('PATCH', ownerPath, { body: { role: 'member' } }),
      await admin.request('DELETE', ownerPath),
      await admin.request('PATCH', `/api/v1/team/members/${org.member.accountId}`, { body: { role: 'owner' } }),
      await admin.request('PATCH', '/api/v1/team', { body: { name: 'Bondi Medical' } }),
    ]) {
      expect(res.status).toBe(403);
      expect((await json(res)).error.code).toBe('forbidden_role');
    }
    const owner = await signedIn(server, org.owner);
    const renamed = await owner.request('PATCH', '/api/v1/team', { body: { name: '  Bondi Medical ' } });
    expect(TEAM.parse(await json(renamed)).data.organisation.name).toBe('Bondi Medical');
    // The rename is on the organisation's Activity, with both names (issue #36).
    const { data: activity } = await json(await owner.get('/api/v1/activity?limit=1'));
    expect(activity.events[0]).toMatchObject({
      event: 'organisation_renamed',
      actor: org.owner.email,
      previous_name: org.owner.email,
      organisation_name: 'Bondi Medical',
    });
    // Made an owner by an owner, the admin may then do what owners do.
    const promoted = await owner.request('PATCH', `/api/v1/team/members/${org.admin.accountId}`, {
      body: { role: 'owner' },
    });
    expect(promoted.status).toBe(200);
    expect((await admin.request('PATCH', ownerPath, { body: { role: 'admin' } })).status).toBe(200);
  });

  it('an organisation keeps an owner: the last one can neither step down nor be removed (409 last_owner)', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const self = `/api/v1/team/members/${org.owner.accountId}`;
    for (const res of [
      await owner.request('PATCH', self, { body: { role: 'admin' } }),
      await owner.request('DELETE', self),
    ]) {
      expect(res.status).toBe(409);
      expect(await json(res)).toEqual({
        success: false,
        error: { code: 'last_owner', message: 'An organisation keeps at least one owner' },
      });
    }
  });

  it("an owner's promotion and an admin's demotion of one member at once: the admin never demotes the new owner (25 rounds)", async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const admin = await signedIn(server, org.admin);
    const person = await org.add('admin');
    const path = `/api/v1/team/members/${person.accountId}`;
    for (let round = 0; round < 25; round++) {
      expect((await owner.request('PATCH', path, { body: { role: 'admin' } })).status).toBe(200);
      const [promoted, demoted] = await Promise.all([
        owner.request('PATCH', path, { body: { role: 'owner' } }),
        admin.request('PATCH', path, { body: { role: 'member' } }),
      ]);
      expect(promoted.status).toBe(200);
      // Either the demotion came first (an admin demoting an admin) and the promotion after, or it found an owner.
      if (demoted.status !== 200) {
        expect(demoted.status).toBe(403);
        expect((await json(demoted)).error).toEqual({
          code: 'forbidden_role',
          message: 'Your role does not allow this',
        });
      }
      expect(server.runtime.accounts.membershipOf(person.accountId)?.role, `round ${round}`).toBe('owner');
    }
  });

  it('an actor demoted or removed since their session was read acts with the role they have now', async () => {
    const org = await organisation(server);
    const admin = server.runtime.accounts.membershipOf(org.admin.accountId)!;
    const asRead = { member: { ...admin }, email: org.admin.email, by: { source: 'web', ip: '127.0.0.1' } } as const;
    await server.runtime.team.changeRole(OPERATOR, org.organisationId, org.admin.accountId, 'member');
    for (const attempt of [
      () => server.runtime.team.changeRole(asRead, org.organisationId, org.member.accountId, 'admin'),
      () => server.runtime.team.remove(asRead, org.organisationId, org.member.accountId),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'forbidden_role' });
    }
    await server.runtime.team.remove(OPERATOR, org.organisationId, org.admin.accountId);
    await expect(
      server.runtime.team.changeRole(asRead, org.organisationId, org.member.accountId, 'admin'),
    ).rejects.toMatchObject({ code: 'forbidden_role' });
    expect(server.runtime.accounts.membershipOf(org.member.accountId)?.role).toBe('member');
  });

  it('another organisation is out of reach: 404 member_not_found, nothing changed', async () => {
    const mine = await organisation(server);
    const theirs = await organisation(server);
    const owner = await signedIn(server, mine.owner);
    for (const res of [
      await owner.request('PATCH', `/api/v1/team/members/${theirs.member.accountId}`, { body: { role: 'admin' } }),
      await owner.request('DELETE', `/api/v1/team/members/${theirs.owner.accountId}`),
    ]) {
      expect(res.status).toBe(404);
      expect((await json(res)).error.code).toBe('member_not_found');
    }
    expect(server.runtime.accounts.membershipOf(theirs.member.accountId)?.role).toBe('member');
  });

  it('bad bodies get the error envelope: unknown role, extra fields, broken JSON, a huge name', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const path = `/api/v1/team/members/${org.member.accountId}`;
    const cases: [Promise<Response>, string][] = [
      [owner.request('PATCH', path, { body: { role: 'superuser' } }), 'invalid_request'],
      [owner.request('PATCH', path, { body: { role: 'admin', extra: 1 } }), 'invalid_request'],
      [owner.request('PATCH', path, { body: '{"role":' }), 'invalid_json'],
      [owner.request('PATCH', '/api/v1/team', { body: { name: 'x'.repeat(201) } }), 'invalid_request'],
      [owner.request('PATCH', '/api/v1/team', { body: { name: '   ' } }), 'invalid_request'],
    ];
    for (const [pending, code] of cases) {
      const res = await pending;
      expect(res.status).toBe(400);
      expect((await json(res)).error.code).toBe(code);
    }
    expect(server.runtime.accounts.membershipOf(org.member.accountId)?.role).toBe('member');
  });

  it("a removed member's open session is refused at once and their key stays the organisation's", async () => {
    const org = await organisation(server);
    const admin = await signedIn(server, org.admin);
    const created = await json(await admin.post('/api/v1/keys/generate'));
    const member = await signedIn(server, org.member);
    const owner = await signedIn(server, org.owner);
    expect((await owner.request('DELETE', `/api/v1/team/members/${org.admin.accountId}`)).status).toBe(200);
    expect((await owner.request('DELETE', `/api/v1/team/members/${org.member.accountId}`)).status).toBe(200);
    const res = await member.get('/api/v1/keys/status');
    expect(res.status).toBe(401);
    expect((await admin.get('/api/v1/team')).status).toBe(401);
    expect((await new SessionClient(server.url).login(org.member.email, PASSWORD)).status).toBe(401);
    // The admin's key works on: it is the organisation's.
    const check = await fetch(`${server.url}/api/v1/check-postcode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': created.data.api_key },
      body: JSON.stringify({ postcode: '2480' }),
    });
    expect(check.status).toBe(200);
    const events = await server.runtime.audit.read({ organisationId: org.organisationId });
    expect(events.filter((e) => e.event === 'member_removed').map((e) => [e.email, e.member_email, e.role])).toEqual([
      [org.owner.email, org.admin.email, 'admin'],
      [org.owner.email, org.member.email, 'member'],
    ]);
  });
});

describe('two instances', () => {
  // One instance per data directory on the JSON default: only the shared backends have two that must agree.
  it.skipIf(testBackend() === 'json')('a member removed on A is refused on B at their next request', () =>
    twoInstances(async (a, b) => {
      const org = await organisation(a);
      const onB = await signedIn(b, org.member);
      expect((await onB.get('/api/v1/team')).status).toBe(200);
      const owner = await signedIn(a, org.owner);
      expect((await owner.request('DELETE', `/api/v1/team/members/${org.member.accountId}`)).status).toBe(200);
      const res = await onB.get('/api/v1/team');
      expect(res.status).toBe(401);
      expect((await json(res)).error.code).toBe('unauthenticated');
    }),
  );
});
