import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usePostgresServer } from '../../helpers/postgres-per-file';
import { useRedisServer } from '../../helpers/redis-per-file';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { tokenOf } from '../signup/signup-world';
import { organisation, signedIn } from '../team/team-world';

/**
 * Issue #35 (12): an acknowledged action has its audit event, or is refused. On PostgreSQL + Redis (sessions in Redis,
 * so a sign-in needs nothing of the database but its audit row): while the audit rows cannot be written, sign-in and
 * the audited writes answer 503 storage_unavailable and change nothing; a team change or an invitation is written
 * with its audit row in one transaction, so there is never one without the other.
 */
describe('audit events are written with their change, or the change is refused', () => {
  const postgres = usePostgresServer();
  const redis = useRedisServer();
  let server: TestServer;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await postgres.createDatabase('audit_with_change');
    server = await startTestServer({
      config: {
        DATABASE_URL: databaseUrl,
        REDIS_URL: redis.url,
        SESSION_SECRET: 'a shared session secret of at least 32 characters',
      },
    });
  }, 60_000);
  afterAll(() => server?.close());

  /** Every audit row insert fails as a database going away would (SQLSTATE 57P01), until `run` is done. */
  async function auditRowsRefused(run: () => Promise<void>): Promise<void> {
    const admin = postgres.pool(databaseUrl);
    await admin.query(`CREATE FUNCTION audit_gone() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'terminating connection' USING ERRCODE = 'admin_shutdown'; END $$`);
    await admin.query(
      'CREATE TRIGGER audit_gone BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_gone()',
    );
    try {
      await run();
    } finally {
      await admin.query('DROP TRIGGER audit_gone ON audit_events');
      await admin.query('DROP FUNCTION audit_gone()');
    }
  }

  async function expectUnavailable(res: Response): Promise<void> {
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(503);
    expect(body.error.code).toBe('storage_unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
  }

  it('sign-in, a role change, a removal and an invitation are refused while their audit rows cannot be written', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const invited = `invited-${process.pid}@audit.example`;
    const before = await server.runtime.audit.read({ organisationId: org.organisationId });
    await auditRowsRefused(async () => {
      const browser = new SessionClient(server.url);
      await expectUnavailable(await browser.login(org.member.email, org.member.password));
      expect((await json(await browser.get('/api/v1/auth/session'))).data.authenticated).toBe(false);

      const memberPath = `/api/v1/team/members/${org.member.accountId}`;
      await expectUnavailable(await owner.request('PATCH', memberPath, { body: { role: 'admin' } }));
      await expectUnavailable(await owner.request('DELETE', memberPath));
      await expectUnavailable(
        await owner.post('/api/v1/team/invitations', { body: { email: invited, role: 'member' } }),
      );
    });
    expect(server.runtime.accounts.membershipOf(org.member.accountId)?.role).toBe('member');
    expect(server.runtime.invitations.list(org.organisationId)).toEqual([]);
    expect(await server.runtime.audit.read({ organisationId: org.organisationId })).toEqual(before);

    // The same again with the audit trail back: each is done, and each has its event.
    expect((await new SessionClient(server.url).login(org.member.email, org.member.password)).status).toBe(200);
    const memberPath = `/api/v1/team/members/${org.member.accountId}`;
    expect((await owner.request('PATCH', memberPath, { body: { role: 'admin' } })).status).toBe(200);
    const invitation = await owner.post('/api/v1/team/invitations', { body: { email: invited, role: 'member' } });
    expect(invitation.status).toBe(201);
    const after = await server.runtime.audit.read({ organisationId: org.organisationId });
    expect(after.map((e) => e.event)).toEqual(
      expect.arrayContaining(['login', 'member_role_changed', 'invitation_created']),
    );
  });

  it("an invitation's resend, revoke and accept, and a password reset, are refused while their audit rows cannot be written", async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const made = await owner.post('/api/v1/team/invitations', {
      body: { email: `links-${process.pid}@audit.example`, role: 'member' },
    });
    expect(made.status).toBe(201);
    const { invitation, link } = (await json(made)).data;
    const issued = await owner.post(`/api/v1/team/members/${org.member.accountId}/reset-link`);
    expect(issued.status).toBe(201);
    const resetToken = tokenOf((await json(issued)).data.link);
    const newPassword = 'a new passphrase for the audit test';
    const before = await server.runtime.audit.read({ organisationId: org.organisationId });
    const pendingBefore = server.runtime.invitations.list(org.organisationId);
    await auditRowsRefused(async () => {
      await expectUnavailable(await owner.post(`/api/v1/team/invitations/${invitation.id}/resend`));
      await expectUnavailable(await owner.request('DELETE', `/api/v1/team/invitations/${invitation.id}`));
      const person = new SessionClient(server.url);
      await expectUnavailable(
        await person.post('/api/v1/invitations/accept', { body: { token: tokenOf(link), password: newPassword } }),
      );
      await expectUnavailable(
        await person.post('/api/v1/auth/password-reset', { body: { token: resetToken, password: newPassword } }),
      );
    });
    // Nothing changed: the same invitation (same link, same expiry), no new account, the old password still works.
    expect(server.runtime.invitations.list(org.organisationId)).toEqual(pendingBefore);
    expect(await server.runtime.audit.read({ organisationId: org.organisationId })).toEqual(before);
    expect((await new SessionClient(server.url).login(org.member.email, org.member.password)).status).toBe(200);

    // With the audit trail back, each is done and has its event.
    const person = new SessionClient(server.url);
    const accepted = await person.post('/api/v1/invitations/accept', {
      body: { token: tokenOf(link), password: newPassword },
    });
    expect(accepted.status).toBe(200);
    const reset = await person.post('/api/v1/auth/password-reset', {
      body: { token: resetToken, password: newPassword },
    });
    expect(reset.status).toBe(200);
    const events = (await server.runtime.audit.read({ organisationId: org.organisationId })).map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(['invitation_accepted', 'member_added', 'password_reset']));
  });

  it('kill -9 of PostgreSQL: sign-in answers 503 storage_unavailable and signs nobody in (its audit row is lost)', async () => {
    const org = await organisation(server);
    await postgres.server.crash();
    try {
      const browser = new SessionClient(server.url);
      await expectUnavailable(await browser.login(org.owner.email, org.owner.password));
      expect((await json(await browser.get('/api/v1/auth/session'))).data.authenticated).toBe(false);
    } finally {
      await postgres.server.restart();
    }
  });
});
