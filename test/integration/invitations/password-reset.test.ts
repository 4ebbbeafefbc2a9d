import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionData } from '../../../shared/api/auth';
import { successEnvelope } from '../../../shared/api/envelope';
import { NewInvitationData, ResetLinkData } from '../../../shared/api/invitations';
import { testBackend } from '../../helpers/shared-backends';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { emailFor, organisation, PASSWORD, signedIn, twoInstances } from '../team/team-world';

const RESET = successEnvelope(ResetLinkData.strict());
const SESSION = successEnvelope(SessionData.strict());
const NEW_PASSWORD = 'a brand new passphrase';
const RESET_LINK = /^http:\/\/127\.0\.0\.1:\d+\/console\/reset-password#([A-Za-z0-9_-]{43})$/;
const tokenOf = (link: string) => link.slice(link.indexOf('#') + 1);

const secrets = new Set<string>([NEW_PASSWORD]);

async function resetLinkFor(client: SessionClient, accountId: string) {
  const res = await client.post(`/api/v1/team/members/${accountId}/reset-link`);
  expect(res.status).toBe(201);
  const data = RESET.parse(await json(res)).data;
  secrets.add(data.link).add(tokenOf(data.link));
  return data;
}

function anonymous(server: Pick<TestServer, 'url'>, path: string, body: unknown): Promise<Response> {
  return new SessionClient(server.url).post(path, { body });
}

async function expectError(res: Response, status: number, code: string): Promise<void> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.error.code).toBe(code);
}

function expectNoSecretsIn(logs: readonly string[]): void {
  const text = logs.join('\n');
  for (const secret of secrets) expect(text.includes(secret), 'a secret in the logs').toBe(false);
}

describe('password reset', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    if (server) expectNoSecretsIn(server.logs);
    await server?.close();
  });

  it("an admin's reset link sets the password, ends every session of the account and signs in", async () => {
    const org = await organisation(server);
    const admin = await signedIn(server, org.admin);
    const here = await signedIn(server, org.member);
    const there = await signedIn(server, org.member);
    const issued = await resetLinkFor(admin, org.member.accountId);
    expect(issued.link).toMatch(RESET_LINK);
    expect(issued.emailed).toBe(false);
    expect(Date.parse(issued.expires_at) - server.runtime.clock().getTime()).toBeLessThanOrEqual(2 * 3600_000);

    const person = new SessionClient(server.url);
    const body = { token: tokenOf(issued.link), password: NEW_PASSWORD };
    const res = await person.post('/api/v1/auth/password-reset', { body });
    expect(res.status).toBe(200);
    expect(SESSION.parse(await json(res)).data).toMatchObject({
      authenticated: true,
      account: { id: org.member.accountId, email: org.member.email },
      organisation: { role: 'member' },
    });
    expect((await person.get('/api/v1/team')).status).toBe(200);
    for (const old of [here, there]) await expectError(await old.get('/api/v1/team'), 401, 'unauthenticated');
    await expectError(
      await new SessionClient(server.url).login(org.member.email, PASSWORD),
      401,
      'invalid_credentials',
    );
    expect((await new SessionClient(server.url).login(org.member.email, NEW_PASSWORD)).status).toBe(200);
    // Used up.
    await expectError(await anonymous(server, '/api/v1/auth/password-reset', body), 400, 'invalid_link');
    const events = await server.runtime.audit.read({ organisationId: org.organisationId });
    expect(
      events.filter((e) => e.event.startsWith('password_reset')).map((e) => [e.event, e.email, e.member_email, e.role]),
    ).toEqual([
      ['password_reset_requested', org.admin.email, org.member.email, 'member'],
      ['password_reset', org.member.email, org.member.email, 'member'],
    ]);
  });

  it('a new link replaces the old; replayed concurrently, one reset wins', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const first = await resetLinkFor(owner, org.admin.accountId);
    const second = await resetLinkFor(owner, org.admin.accountId);
    const old = { token: tokenOf(first.link), password: NEW_PASSWORD };
    await expectError(await anonymous(server, '/api/v1/auth/password-reset', old), 400, 'invalid_link');
    const body = { token: tokenOf(second.link), password: NEW_PASSWORD };
    const answers = await Promise.all([1, 2, 3, 4].map(() => anonymous(server, '/api/v1/auth/password-reset', body)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
    expect(server.runtime.accounts.findById(org.admin.accountId)).toBeDefined();
  });

  it('a short password is 400 weak_password and leaves the link usable', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const { link } = await resetLinkFor(owner, org.member.accountId);
    const token = tokenOf(link);
    await expectError(
      await anonymous(server, '/api/v1/auth/password-reset', { token, password: 'short' }),
      400,
      'weak_password',
    );
    expect((await anonymous(server, '/api/v1/auth/password-reset', { token, password: NEW_PASSWORD })).status).toBe(
      200,
    );
  });

  it('a request answers 202 with the same body whether or not the email has an account; without SMTP nothing is made', async () => {
    const org = await organisation(server);
    const known = await anonymous(server, '/api/v1/auth/password-reset/request', { email: org.member.email });
    const unknown = await anonymous(server, '/api/v1/auth/password-reset/request', { email: emailFor('nobody') });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    const body = await json(known);
    expect(body).toEqual({ success: true, data: { mail_enabled: false } });
    expect(await json(unknown)).toEqual(body);
    await server.runtime.passwordResets.drain();
    const store = await server.runtime.storage.accounts();
    expect(store.current.password_resets.filter((r) => r.account_id === org.member.accountId)).toEqual([]);
    const events = (await server.runtime.audit.read()).filter((e) => e.event === 'password_reset_requested');
    // PostgreSQL's audit rows are written in the background, two at once here: their ids need not follow the requests.
    const lastTwo = events.slice(-2).map((e) => [e.email, e.organisation_id ?? null, e.reason]);
    expect(lastTwo).toHaveLength(2);
    expect(lastTwo).toEqual(
      expect.arrayContaining([
        [org.member.email, org.organisationId, 'mail_disabled'],
        [expect.stringContaining('nobody'), null, 'unknown_email'],
      ]),
    );
  });

  it('requests are limited like sign-in (5 per email in 15 minutes), apart from sign-in attempts', async () => {
    const org = await organisation(server);
    const ask = () => anonymous(server, '/api/v1/auth/password-reset/request', { email: org.admin.email });
    for (let i = 0; i < 5; i++) expect((await ask()).status).toBe(202);
    const limited = await ask();
    await expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Sign-in for the same email is untouched.
    expect((await new SessionClient(server.url).login(org.admin.email, PASSWORD)).status).toBe(200);
  });
});

describe('links expire', () => {
  let now = Date.parse('2026-06-01T00:00:00.000Z');
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(now) });
  });
  afterAll(async () => {
    if (server) expectNoSecretsIn(server.logs);
    await server?.close();
  });

  it('an invitation works until 7 days after it was sent, then is dead and purged', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const res = await owner.post('/api/v1/team/invitations', { body: { email: emailFor('late'), role: 'member' } });
    const { link, invitation } = successEnvelope(NewInvitationData).parse(await json(res)).data;
    secrets.add(link).add(tokenOf(link));
    const token = tokenOf(link);
    now = Date.parse(invitation.expires_at) - 1;
    expect((await anonymous(server, '/api/v1/invitations/lookup', { token })).status).toBe(200);
    now += 1;
    await expectError(await anonymous(server, '/api/v1/invitations/lookup', { token }), 400, 'invalid_link');
    const accept = await anonymous(server, '/api/v1/invitations/accept', { token, password: NEW_PASSWORD });
    await expectError(accept, 400, 'invalid_link');
    const again = await signedIn(server, org.owner);
    expect((await json(await again.get('/api/v1/team/invitations'))).data.invitations).toEqual([]);
    await expectError(
      await again.post(`/api/v1/team/invitations/${invitation.id}/resend`),
      404,
      'invitation_not_found',
    );
    const store = await server.runtime.storage.accounts();
    expect(store.current.invitations.map((i) => i.id)).toContain(invitation.id);
    expect(await server.runtime.invitations.purgeExpired()).toBe(1);
    expect(store.current.invitations.map((i) => i.id)).not.toContain(invitation.id);
  });

  it('a reset link works for 2 hours', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const { link, expires_at } = await resetLinkFor(owner, org.member.accountId);
    expect(Date.parse(expires_at) - now).toBe(2 * 3600_000);
    now = Date.parse(expires_at);
    const body = { token: tokenOf(link), password: NEW_PASSWORD };
    await expectError(await anonymous(server, '/api/v1/auth/password-reset', body), 400, 'invalid_link');
    expect(await server.runtime.passwordResets.purgeExpired()).toBe(1);
  });
});

describe('two instances', () => {
  // One instance per data directory on the JSON default: only the shared backends have two that must agree.
  it.skipIf(testBackend() === 'json')("a reset on A ends the account's session on B at its next request", () =>
    twoInstances(async (a, b) => {
      const org = await organisation(a);
      const onB = await signedIn(b, org.member);
      expect((await onB.get('/api/v1/team')).status).toBe(200);
      const { link } = await resetLinkFor(await signedIn(a, org.owner), org.member.accountId);
      const body = { token: tokenOf(link), password: NEW_PASSWORD };
      expect((await anonymous(a, '/api/v1/auth/password-reset', body)).status).toBe(200);
      await expectError(await onB.get('/api/v1/team'), 401, 'unauthenticated');
      // The new password works on B; the link is used up there too.
      expect((await new SessionClient(b.url).login(org.member.email, NEW_PASSWORD)).status).toBe(200);
      await expectError(await anonymous(b, '/api/v1/auth/password-reset', body), 400, 'invalid_link');
      expectNoSecretsIn([...a.logs, ...b.logs]);
    }),
  );
});
