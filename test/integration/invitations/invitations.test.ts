import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionData } from '../../../shared/api/auth';
import { successEnvelope } from '../../../shared/api/envelope';
import {
  InvitationPreview,
  InvitationsData,
  MAX_PENDING_INVITATIONS,
  NewInvitationData,
} from '../../../shared/api/invitations';
import type { Role } from '../../../shared/api/team';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { testBackend } from '../../helpers/shared-backends';
import { emailFor, organisation, PASSWORD, signedIn, twoInstances, type Org } from '../team/team-world';

const NEW = successEnvelope(NewInvitationData.strict());
const LIST = successEnvelope(InvitationsData.strict());
const PREVIEW = successEnvelope(InvitationPreview.strict());
const SESSION = successEnvelope(SessionData.strict());
const NEW_PASSWORD = 'a brand new passphrase';
const LINK = /^(http:\/\/127\.0\.0\.1:\d+)\/console\/invitation#([A-Za-z0-9_-]{43})$/;

/** The token of an invitation link, after `#`. */
const tokenOf = (link: string) => link.slice(link.indexOf('#') + 1);

/** Whatever a test issued that must never be written anywhere: tokens, links, passwords. */
const secrets = new Set<string>();

async function invite(client: SessionClient, email: string, role: Role) {
  const res = await client.post('/api/v1/team/invitations', { body: { email, role } });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);
  const { data } = NEW.parse(await json(res));
  secrets.add(data.link).add(tokenOf(data.link));
  return data;
}

let browsers = 0;
/**
 * POST without a session (a fresh browser opening the link), each from an address of its own: the refusals the tests
 * provoke on purpose do not add up to the link throttle's limit.
 */
function anonymous(server: TestServer, path: string, body: unknown): Promise<Response> {
  const address = `10.35.${Math.floor(++browsers / 250)}.${browsers % 250}`;
  return new SessionClient(server.url).post(path, { body, headers: { 'x-forwarded-for': address } });
}

async function expectError(res: Response, status: number, code: string): Promise<void> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.success).toBe(false);
  expect(body.error.code).toBe(code);
}

let server: TestServer;
beforeAll(async () => {
  // X-Forwarded-For believed: the throttle test comes from addresses of its own.
  server = await startTestServer({ trustProxy: true });
});
afterAll(async () => {
  // Nothing a test issued reached the log: no link, token or password, in any line (request log, errors).
  const logs = server?.logs.join('\n') ?? '';
  for (const secret of secrets) expect(logs.includes(secret), 'a secret in the logs').toBe(false);
  await server?.close();
});

describe('invitations: the happy path', () => {
  it('an owner invites an admin; the link previews, accepts once, and signs the new admin in', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const email = emailFor('new-admin');
    const created = await invite(owner, email, 'admin');
    const [, origin, token] = LINK.exec(created.link)!;
    expect(origin).toBe(server.url);
    expect(created.emailed).toBe(false);
    expect(created.invitation).toMatchObject({ email, role: 'admin', invited_by: org.owner.email });
    expect(Date.parse(created.invitation.expires_at) - Date.parse(created.invitation.created_at)).toBe(7 * 86_400_000);

    const listed = LIST.parse(await json(await owner.get('/api/v1/team/invitations'))).data.invitations;
    expect(listed).toEqual([created.invitation]);

    const preview = await anonymous(server, '/api/v1/invitations/lookup', { token });
    expect(PREVIEW.parse(await json(preview)).data).toEqual({
      organisation: org.owner.email,
      email,
      role: 'admin',
      expires_at: created.invitation.expires_at,
    });

    const person = new SessionClient(server.url);
    const accepted = await person.post('/api/v1/invitations/accept', { body: { token, password: NEW_PASSWORD } });
    expect(accepted.status).toBe(200);
    const session = SESSION.parse(await json(accepted)).data;
    expect(session).toMatchObject({
      authenticated: true,
      account: { email },
      organisation: { id: org.organisationId, role: 'admin' },
    });
    expect(person.sessionCookie).toBeDefined();
    // Signed in as sign-in does it: the same view from GET /session, and the admin's powers at once.
    expect((await json(await person.get('/api/v1/auth/session'))).data).toEqual({
      ...session,
      expires_at: expect.any(String),
    });
    expect((await person.get('/api/v1/team/invitations')).status).toBe(200);
    expect((await new SessionClient(server.url).login(email, NEW_PASSWORD)).status).toBe(200);

    // Used up: gone from the list, and the link is dead.
    expect(LIST.parse(await json(await owner.get('/api/v1/team/invitations'))).data.invitations).toEqual([]);
    await expectError(await anonymous(server, '/api/v1/invitations/lookup', { token }), 400, 'invalid_link');
    const events = await server.runtime.audit.read({ organisationId: org.organisationId });
    expect(
      events
        .filter((e) => e.member_email === email)
        .map((e) => [e.event, e.source, e.email, e.member_email, e.role, e.ip !== undefined]),
    ).toEqual([
      ['invitation_created', 'web', org.owner.email, email, 'admin', true],
      ['invitation_accepted', 'web', email, email, 'admin', true],
      ['member_added', 'web', email, email, 'admin', true],
    ]);
  });

  it('inviting the same email again replaces the pending invitation: the old link is dead', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const email = emailFor('twice');
    const first = await invite(owner, email, 'member');
    const second = await invite(owner, email.toUpperCase(), 'admin');
    expect(second.invitation.email).toBe(email);
    expect(second.invitation.id).not.toBe(first.invitation.id);
    const listed = LIST.parse(await json(await owner.get('/api/v1/team/invitations'))).data.invitations;
    expect(listed).toEqual([second.invitation]);
    const old = { token: tokenOf(first.link), password: NEW_PASSWORD };
    await expectError(await anonymous(server, '/api/v1/invitations/accept', old), 400, 'invalid_link');
    const res = await anonymous(server, '/api/v1/invitations/accept', { ...old, token: tokenOf(second.link) });
    expect(SESSION.parse(await json(res)).data.organisation?.role).toBe('admin');
  });

  it('resend gives a new link (the old one dies); revoke kills it; unknown ids are 404 invitation_not_found', async () => {
    const org = await organisation(server);
    const admin = await signedIn(server, org.admin);
    const created = await invite(admin, emailFor('resent'), 'member');
    const resent = await admin.post(`/api/v1/team/invitations/${created.invitation.id}/resend`);
    expect(resent.status).toBe(200);
    const renewed = NEW.parse(await json(resent)).data;
    secrets.add(renewed.link).add(tokenOf(renewed.link));
    expect(renewed.invitation.id).toBe(created.invitation.id);
    expect(renewed.link).not.toBe(created.link);
    const lookup = (link: string) => anonymous(server, '/api/v1/invitations/lookup', { token: tokenOf(link) });
    await expectError(await lookup(created.link), 400, 'invalid_link');
    expect((await lookup(renewed.link)).status).toBe(200);

    const revoked = await admin.request('DELETE', `/api/v1/team/invitations/${created.invitation.id}`);
    expect(LIST.parse(await json(revoked)).data.invitations).toEqual([]);
    await expectError(await lookup(renewed.link), 400, 'invalid_link');
    const again = await admin.request('DELETE', `/api/v1/team/invitations/${created.invitation.id}`);
    await expectError(again, 404, 'invitation_not_found');
    await expectError(await admin.post('/api/v1/team/invitations/nope/resend'), 404, 'invitation_not_found');
    const events = await server.runtime.audit.read({ organisationId: org.organisationId });
    expect(events.map((e) => e.event).slice(-3)).toEqual([
      'invitation_created',
      'invitation_resent',
      'invitation_revoked',
    ]);
  });

  it("another organisation's invitations are out of reach", async () => {
    const mine = await organisation(server);
    const theirs = await organisation(server);
    const theirOwner = await signedIn(server, theirs.owner);
    const created = await invite(theirOwner, emailFor('theirs'), 'member');
    const owner = await signedIn(server, mine.owner);
    const path = `/api/v1/team/invitations/${created.invitation.id}`;
    await expectError(await owner.request('DELETE', path), 404, 'invitation_not_found');
    await expectError(await owner.post(`${path}/resend`), 404, 'invitation_not_found');
    expect(LIST.parse(await json(await owner.get('/api/v1/team/invitations'))).data.invitations).toEqual([]);
    const reset = await owner.post(`/api/v1/team/members/${theirs.member.accountId}/reset-link`);
    await expectError(reset, 404, 'member_not_found');
  });
});

describe('invitations: refusals', () => {
  it('an email with an account anywhere is invited as a new one is (201, same shape); its link says so', async () => {
    const org = await organisation(server);
    const other = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const fresh = await invite(owner, emailFor('fresh'), 'member');
    for (const email of [org.member.email, other.admin.email.toUpperCase()]) {
      const known = await invite(owner, email, 'member');
      expect(Object.keys(known).sort()).toEqual(Object.keys(fresh).sort());
      expect(Object.keys(known.invitation).sort()).toEqual(Object.keys(fresh.invitation).sort());
      expect(known.emailed).toBe(fresh.emailed);
      // The holder of the link learns it there, and nothing is created or changed.
      const token = tokenOf(known.link);
      await expectError(await anonymous(server, '/api/v1/invitations/lookup', { token }), 409, 'account_exists');
      const accept = await anonymous(server, '/api/v1/invitations/accept', { token, password: NEW_PASSWORD });
      await expectError(accept, 409, 'account_exists');
    }
    expect((await new SessionClient(server.url).login(other.admin.email, PASSWORD)).status).toBe(200);
  });

  it('150 invitations in a row from one organisation: 30 are made, then 429 mail_limited with Retry-After', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) {
      // Addresses with an account and without, mixed: each answered alike until the limit.
      const email = [org.member.email, org.admin.email][i] ?? emailFor('probe');
      const res = await owner.post('/api/v1/team/invitations', { body: { email, role: 'member' } });
      statuses.push(res.status);
      const body = await json(res);
      if (res.status === 201) secrets.add(body.data.link).add(tokenOf(body.data.link));
      else {
        expect(body.error.code).toBe('mail_limited');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(3000);
        expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
      }
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(30);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    // The budget is the organisation's: a reset link is refused too, and another organisation is not held back.
    const reset = await owner.post(`/api/v1/team/members/${org.member.accountId}/reset-link`);
    await expectError(reset, 429, 'mail_limited');
    await invite(await signedIn(server, (await organisation(server)).owner), emailFor('elsewhere'), 'member');
  });

  it(`an organisation has at most ${MAX_PENDING_INVITATIONS} pending invitations: 409 too_many_invitations`, async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const store = await server.runtime.storage.accounts();
    const now = server.runtime.clock();
    await store.update((file) => {
      for (let i = 0; i < MAX_PENDING_INVITATIONS; i++) {
        file.invitations.push({
          id: `bulk-${org.organisationId}-${i}`,
          organisation_id: org.organisationId,
          email: `bulk${i}@${org.organisationId}.example`,
          role: 'member',
          token_hash: createHash('sha256').update(`${org.organisationId}-${i}`).digest('hex'),
          invited_by: null,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
        });
      }
    });
    const res = await owner.post('/api/v1/team/invitations', { body: { email: emailFor('one-more'), role: 'member' } });
    await expectError(res, 409, 'too_many_invitations');
    // Inviting one of them again replaces it, and revoking one makes room.
    const again = await owner.post('/api/v1/team/invitations', {
      body: { email: `bulk0@${org.organisationId}.example`, role: 'admin' },
    });
    expect(again.status).toBe(201);
    secrets.add((await json(again)).data.link);
    expect((await owner.request('DELETE', `/api/v1/team/invitations/bulk-${org.organisationId}-1`)).status).toBe(200);
    await invite(owner, emailFor('room'), 'member');
  });

  it('replayed, also concurrently: one account, every other attempt 400 invalid_link', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const email = emailFor('replayed');
    const { link } = await invite(owner, email, 'member');
    const body = { token: tokenOf(link), password: NEW_PASSWORD };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => anonymous(server, '/api/v1/invitations/accept', body)),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    for (const res of answers.filter((r) => r.status === 400)) await expectError(res, 400, 'invalid_link');
    await expectError(await anonymous(server, '/api/v1/invitations/accept', body), 400, 'invalid_link');
    expect(server.runtime.accounts.list().filter((a) => a.account.email === email)).toHaveLength(1);
    const team = await json(await owner.get('/api/v1/team'));
    expect(team.data.members.filter((m: { email: string }) => m.email === email)).toHaveLength(1);
  });

  it('a short password is 400 weak_password and leaves the link usable', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const { link } = await invite(owner, emailFor('weak'), 'member');
    const token = tokenOf(link);
    const weak = await anonymous(server, '/api/v1/invitations/accept', { token, password: 'nine char' });
    await expectError(weak, 400, 'weak_password');
    expect((await anonymous(server, '/api/v1/invitations/lookup', { token })).status).toBe(200);
    const ok = await anonymous(server, '/api/v1/invitations/accept', { token, password: 'ten chars!' });
    expect(ok.status).toBe(200);
  });

  it('ugly bodies: wrong types, broken JSON, extra fields, malformed tokens, huge bodies, not JSON', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const cases: [Promise<Response>, number, string][] = [
      [owner.post('/api/v1/team/invitations', { body: { email: 42, role: 'member' } }), 400, 'invalid_request'],
      [owner.post('/api/v1/team/invitations', { body: { email: 'x@y.z', role: 'boss' } }), 400, 'invalid_request'],
      [
        owner.post('/api/v1/team/invitations', { body: { email: 'not-an-email', role: 'admin' } }),
        400,
        'invalid_request',
      ],
      [
        owner.post('/api/v1/team/invitations', { body: { email: 'x@y.z', role: 'admin', x: 1 } }),
        400,
        'invalid_request',
      ],
      [owner.post('/api/v1/team/invitations', { body: '{"email":' }), 400, 'invalid_json'],
      [owner.post('/api/v1/team/invitations', { body: ['x@y.z', 'admin'] }), 400, 'invalid_request'],
      [
        owner.post('/api/v1/team/invitations', { body: { email: `${'a'.repeat(12_000)}@y.z`, role: 'admin' } }),
        413,
        'payload_too_large',
      ],
      [
        owner.post('/api/v1/team/invitations', { body: 'email=x', headers: { 'content-type': 'text/plain' } }),
        415,
        'unsupported_media_type',
      ],
      [anonymous(server, '/api/v1/invitations/lookup', { token: 12345 }), 400, 'invalid_link'],
      [anonymous(server, '/api/v1/invitations/lookup', { token: 'short' }), 400, 'invalid_link'],
      [anonymous(server, '/api/v1/invitations/lookup', { token: `${'A'.repeat(42)}=` }), 400, 'invalid_link'],
      [anonymous(server, '/api/v1/invitations/lookup', { token: 'A'.repeat(43) }), 400, 'invalid_link'],
      [anonymous(server, '/api/v1/invitations/lookup', { token: 'A'.repeat(43), more: 1 }), 400, 'invalid_request'],
      [anonymous(server, '/api/v1/invitations/lookup', null), 400, 'invalid_request'],
      [anonymous(server, '/api/v1/invitations/accept', { token: 'A'.repeat(43), password: 7 }), 400, 'invalid_request'],
      [anonymous(server, '/api/v1/invitations/accept', { token: 'A'.repeat(43) }), 400, 'invalid_request'],
      [anonymous(server, '/api/v1/invitations/accept', '{"token": "x", "token": "y"}'), 400, 'invalid_json'],
      [
        anonymous(server, '/api/v1/invitations/accept', { token: 'A'.repeat(43), password: 'p'.repeat(1025) }),
        400,
        'invalid_request',
      ],
      [
        anonymous(server, '/api/v1/auth/password-reset', { token: 'A'.repeat(43), password: NEW_PASSWORD }),
        400,
        'invalid_link',
      ],
      [anonymous(server, '/api/v1/auth/password-reset/request', { email: ['x@y.z'] }), 400, 'invalid_request'],
    ];
    for (const [pending, status, code] of cases) await expectError(await pending, status, code);
    expect((await new SessionClient(server.url).get('/api/v1/invitations/accept')).status).toBe(405);
  });

  it('an address is ASCII: in Unicode refused; its domain in xn-- form invited, accepted and signed in with', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    // Issue #35: look-alike letters are refused with every other non-ASCII letter; the domain is written as DNS has it.
    const unicode = await owner.post('/api/v1/team/invitations', {
      body: { email: `Zoë.Ñandú${process.pid}@Clínica.example`, role: 'member' },
    });
    await expectError(unicode, 400, 'invalid_request');
    const email = `Zoe.Nandu${process.pid}@XN--Clnica-4va.example`;
    const created = await invite(owner, email, 'member');
    expect(created.invitation.email).toBe(email.toLowerCase());
    const body = { token: tokenOf(created.link), password: 'pässwörd — ünïcode' };
    expect((await anonymous(server, '/api/v1/invitations/accept', body)).status).toBe(200);
    expect((await new SessionClient(server.url).login(email, body.password)).status).toBe(200);
  });

  it('a session cookie sent from another site is refused: 403 forbidden_origin, link untouched', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const { link } = await invite(owner, emailFor('csrf'), 'member');
    const body = { token: tokenOf(link), password: NEW_PASSWORD };
    const res = await owner.post('/api/v1/invitations/accept', { body, origin: 'https://evil.example' });
    await expectError(res, 403, 'forbidden_origin');
    expect((await anonymous(server, '/api/v1/invitations/lookup', { token: body.token })).status).toBe(200);
  });
});

/** Each write as a role: who may, and what the others get. */
interface Write {
  name: string;
  request: (client: SessionClient, org: Org, pendingId: string) => Promise<Response>;
  allowed: number;
}

const WRITES: Write[] = [
  {
    name: 'POST /team/invitations (member role)',
    request: (c) => c.post('/api/v1/team/invitations', { body: { email: emailFor('w'), role: 'member' } }),
    allowed: 201,
  },
  { name: 'GET /team/invitations', request: (c) => c.get('/api/v1/team/invitations'), allowed: 200 },
  {
    name: 'DELETE /team/invitations/{id}',
    request: (c, _o, id) => c.request('DELETE', `/api/v1/team/invitations/${id}`),
    allowed: 200,
  },
  {
    name: 'POST /team/invitations/{id}/resend',
    request: (c, _o, id) => c.post(`/api/v1/team/invitations/${id}/resend`),
    allowed: 200,
  },
  {
    name: "POST /team/members/{id}/reset-link (a member's)",
    request: (c, org) => c.post(`/api/v1/team/members/${org.member.accountId}/reset-link`),
    allowed: 201,
  },
];

describe('roles × invitation and reset writes', () => {
  const MAY: Record<Role, boolean> = { owner: true, admin: true, member: false };
  for (const write of WRITES) {
    for (const role of ['owner', 'admin', 'member'] as const) {
      it(`${write.name} as ${role}: ${MAY[role] ? write.allowed : '403 forbidden_role'}`, async () => {
        const org = await organisation(server);
        const owner = await signedIn(server, org.owner);
        const pending = await invite(owner, emailFor('pending'), 'member');
        const client = role === 'owner' ? owner : await signedIn(server, org[role]);
        const res = await write.request(client, org, pending.invitation.id);
        if (MAY[role]) {
          const body = await json(res);
          expect(res.status, JSON.stringify(body)).toBe(write.allowed);
          if (typeof body.data?.link === 'string') secrets.add(body.data.link).add(tokenOf(body.data.link));
        } else {
          await expectError(res, 403, 'forbidden_role');
        }
      });
    }
  }

  it('admins never invite an owner, nor revoke, resend or reset an owner’s; owners may', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const admin = await signedIn(server, org.admin);
    const ownerInvite = await invite(owner, emailFor('co-owner'), 'owner');
    const path = `/api/v1/team/invitations/${ownerInvite.invitation.id}`;
    for (const res of [
      await admin.post('/api/v1/team/invitations', { body: { email: emailFor('x'), role: 'owner' } }),
      await admin.request('DELETE', path),
      await admin.post(`${path}/resend`),
      await admin.post(`/api/v1/team/members/${org.owner.accountId}/reset-link`),
    ]) {
      await expectError(res, 403, 'forbidden_role');
    }
    // Admins see owner invitations, and may reset another admin's password.
    const listed = LIST.parse(await json(await admin.get('/api/v1/team/invitations'))).data.invitations;
    expect(listed.map((i) => i.role)).toEqual(['owner']);
    const otherAdmin = await org.add('admin');
    expect((await admin.post(`/api/v1/team/members/${otherAdmin.accountId}/reset-link`)).status).toBe(201);
    expect((await owner.post(`/api/v1/team/members/${org.owner.accountId}/reset-link`)).status).toBe(201);
  });

  it('signed out: 401 unauthenticated on every team write', async () => {
    const anon = new SessionClient(server.url);
    await expectError(await anon.get('/api/v1/team/invitations'), 401, 'unauthenticated');
    await expectError(
      await anon.post('/api/v1/team/invitations', { body: { email: 'x@y.z', role: 'member' } }),
      401,
      'unauthenticated',
    );
    await expectError(await anon.post('/api/v1/team/members/x/reset-link'), 401, 'unauthenticated');
  });
});

describe('an invitation lives only while its sender may send it (issue #35)', () => {
  const revocations = async (org: Org) =>
    (await server.runtime.audit.read({ organisationId: org.organisationId }))
      .filter((e) => e.event === 'invitation_revoked')
      .map((e) => [e.member_email, e.role, e.reason, e.email]);
  const pendingOf = async (client: SessionClient) =>
    LIST.parse(await json(await client.get('/api/v1/team/invitations')))
      .data.invitations.map((i) => i.email)
      .sort();

  it('removing an admin revokes the invitations they sent, each audited; their links are dead', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const admin = await signedIn(server, org.admin);
    const backdoor = await invite(admin, emailFor('backdoor'), 'admin');
    const kept = await invite(owner, emailFor('kept'), 'member');
    expect((await owner.request('DELETE', `/api/v1/team/members/${org.admin.accountId}`)).status).toBe(200);
    expect(await pendingOf(owner)).toEqual([kept.invitation.email]);
    const body = { token: tokenOf(backdoor.link), password: NEW_PASSWORD };
    await expectError(await anonymous(server, '/api/v1/invitations/accept', body), 400, 'invalid_link');
    expect(await revocations(org)).toEqual([[backdoor.invitation.email, 'admin', 'inviter_removed', org.owner.email]]);
  });

  it('demoting revokes what the new role may not send: owner → admin loses owner invitations, admin → member all', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const coOwner = await org.add('owner');
    const coOwnerClient = await signedIn(server, coOwner);
    const toOwner = await invite(coOwnerClient, emailFor('to-owner'), 'owner');
    const toAdmin = await invite(coOwnerClient, emailFor('to-admin'), 'admin');
    const fromAdmin = await invite(await signedIn(server, org.admin), emailFor('from-admin'), 'member');
    const demote = (accountId: string, role: Role) =>
      owner.request('PATCH', `/api/v1/team/members/${accountId}`, { body: { role } });
    expect((await demote(coOwner.accountId, 'admin')).status).toBe(200);
    expect(await pendingOf(owner)).toEqual([toAdmin.invitation.email, fromAdmin.invitation.email].sort());
    expect((await demote(org.admin.accountId, 'member')).status).toBe(200);
    expect(await pendingOf(owner)).toEqual([toAdmin.invitation.email]);
    expect(await revocations(org)).toEqual([
      [toOwner.invitation.email, 'owner', 'inviter_role_changed', org.owner.email],
      [fromAdmin.invitation.email, 'member', 'inviter_role_changed', org.owner.email],
    ]);
    const lookup = (link: string) => anonymous(server, '/api/v1/invitations/lookup', { token: tokenOf(link) });
    await expectError(await lookup(toOwner.link), 400, 'invalid_link');
    expect((await lookup(toAdmin.link)).status).toBe(200);
  });

  it('a sender removed behind the service’s back (no revocation ran): the link is refused all the same', async () => {
    const org = await organisation(server);
    const sent = await invite(await signedIn(server, org.admin), emailFor('orphan'), 'admin');
    await server.runtime.accounts.removeMember(org.organisationId, org.admin.accountId);
    const token = tokenOf(sent.link);
    await expectError(await anonymous(server, '/api/v1/invitations/lookup', { token }), 400, 'invalid_link');
    const accept = await anonymous(server, '/api/v1/invitations/accept', { token, password: NEW_PASSWORD });
    await expectError(accept, 400, 'invalid_link');
    expect(server.runtime.accounts.findByEmail(sent.invitation.email)).toBeUndefined();
  });

  it("an admin re-inviting the address of an owner's invitation is refused 403, and the invitation stays", async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const admin = await signedIn(server, org.admin);
    const email = emailFor('owners-own');
    const ownerInvite = await invite(owner, email, 'owner');
    const res = await admin.post('/api/v1/team/invitations', { body: { email, role: 'admin' } });
    await expectError(res, 403, 'forbidden_role');
    expect(LIST.parse(await json(await owner.get('/api/v1/team/invitations'))).data.invitations).toEqual([
      ownerInvite.invitation,
    ]);
    const preview = await anonymous(server, '/api/v1/invitations/lookup', { token: tokenOf(ownerInvite.link) });
    expect(PREVIEW.parse(await json(preview)).data.role).toBe('owner');
    // An admin's own invitation of an address is still theirs to replace.
    const mine = await invite(admin, emailFor('admins-own'), 'member');
    await invite(admin, mine.invitation.email, 'admin');
  });

  it.skipIf(testBackend() === 'json')(
    'the mail limit holds across instances: 40 invitations at once over two instances, exactly 30 made',
    () =>
      twoInstances(async (a, b) => {
        const org = await organisation(a);
        const clients = [await signedIn(a, org.owner), await signedIn(b, org.owner)];
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            clients[i % 2]!.post('/api/v1/team/invitations', { body: { email: emailFor('split'), role: 'member' } }),
          ),
        );
        const statuses = answers.map((r) => r.status);
        expect(statuses.filter((s) => s === 201)).toHaveLength(30);
        expect(statuses.filter((s) => s === 429)).toHaveLength(10);
        for (const res of answers.filter((r) => r.status === 201)) secrets.add((await json(res)).data.link);
      }),
  );
});

describe('links are looked up by their hash and throttled per client address, as sign-in (issue #35)', () => {
  const from = (address: string, path: string, body: unknown) =>
    new SessionClient(server.url).post(path, { body, headers: { 'x-forwarded-for': address } });

  it('20 refused links from one address, then 429 with Retry-After, even for a good link, of every kind (verification too); others are unaffected', async () => {
    const org = await organisation(server);
    const { link } = await invite(await signedIn(server, org.owner), emailFor('throttled'), 'member');
    const token = tokenOf(link);
    const address = `198.51.100.${process.pid % 250}`;
    for (let i = 0; i < 20; i++) {
      const bad = await from(address, '/api/v1/invitations/lookup', {
        token: `${'B'.repeat(40)}${String(i).padStart(3, '0')}`,
      });
      await expectError(bad, 400, 'invalid_link');
    }
    for (const [path, body] of [
      ['/api/v1/invitations/lookup', { token }],
      ['/api/v1/invitations/accept', { token, password: NEW_PASSWORD }],
      ['/api/v1/auth/password-reset', { token, password: NEW_PASSWORD }],
      ['/api/v1/signup/verify-email', { token }],
    ] as const) {
      const res = await from(address, path, body);
      await expectError(res, 429, 'rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(900);
    }
    expect((await from('192.0.2.9', '/api/v1/invitations/lookup', { token })).status).toBe(200);
  });
});
