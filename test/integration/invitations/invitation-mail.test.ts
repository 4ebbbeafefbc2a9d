import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successEnvelope } from '../../../shared/api/envelope';
import { NewInvitationData, ResetLinkData } from '../../../shared/api/invitations';
import { mailHeader, mailPart, startSmtpReceiver } from '../../helpers/smtp-receiver';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { emailFor, organisation, PASSWORD, signedIn } from '../team/team-world';

const SMTP_USER = 'dte-mailer';
const SMTP_PASSWORD = 'smtp-secret-Pa55word';
const MAIL_FROM = 'Disaster Telehealth <noreply@dte.example>';
const NEW_PASSWORD = 'a passphrase from the mail';
const LINK_IN_TEXT = /http:\/\/127\.0\.0\.1:\d+\/console\/(invitation|reset-password)#[A-Za-z0-9_-]{43}/;

const startSmtp = () => startSmtpReceiver({ user: SMTP_USER, password: SMTP_PASSWORD });

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const part = mailPart;
const header = mailHeader;

const tokenOf = (link: string) => link.slice(link.indexOf('#') + 1);

describe('e-mailed links (SMTP_URL)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let server: TestServer;
  const secrets = new Set<string>([SMTP_PASSWORD, NEW_PASSWORD]);

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({
      config: { SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`, MAIL_FROM },
    });
  });
  afterAll(async () => {
    if (server) {
      const logs = server.logs.join('\n');
      for (const secret of secrets) expect(logs.includes(secret), 'a secret in the logs').toBe(false);
    }
    await server?.close();
    await smtp?.close();
  });

  /** The one message sent to `to` since `from` (the index in `received`), and the link in its text. */
  function mailTo(to: string, from: number) {
    const messages = smtp.received.slice(from).filter((m) => m.to.includes(to));
    expect(messages).toHaveLength(1);
    const raw = messages[0]!.raw;
    const text = part(raw, 'text/plain');
    const link = LINK_IN_TEXT.exec(text)![0];
    secrets.add(link).add(tokenOf(link));
    return { raw, text, html: part(raw, 'text/html'), link };
  }

  it("the invitation's e-mail names the practice, who invited, the role and the expiry; its link works", async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    // A name typed by a person: escaped in the HTML body.
    const renamed = await owner.request('PATCH', '/api/v1/team', { body: { name: '<b>Bondi & Co</b>' } });
    expect(renamed.status).toBe(200);
    const email = emailFor('mailed');
    const before = smtp.received.length;
    const res = await owner.post('/api/v1/team/invitations', { body: { email, role: 'admin' } });
    expect(res.status).toBe(201);
    const created = successEnvelope(NewInvitationData).parse(await json(res)).data;
    secrets.add(created.link).add(tokenOf(created.link));
    expect(created.emailed).toBe(true);

    const mail = mailTo(email, before);
    expect(mail.link).toBe(created.link);
    expect(header(mail.raw, 'From')).toBe(MAIL_FROM);
    expect(header(mail.raw, 'To')).toBe(email);
    expect(header(mail.raw, 'Subject')).toBe(
      'You are invited to join <b>Bondi & Co</b> on Disaster Telehealth Eligibility',
    );
    expect(mail.text).toContain(`${org.owner.email} invited you to join <b>Bondi & Co</b>`);
    expect(mail.text).toContain('as an admin');
    expect(mail.text).toMatch(/expires on \w+day, \d+ \w+ \d{4} at .+ \(Sydney time\)/);
    expect(mail.html).toContain('&lt;b&gt;Bondi &amp; Co&lt;/b&gt;');
    expect(mail.html).not.toContain('<b>Bondi');
    expect(mail.html).toContain(`href="${created.link}"`);

    const token = tokenOf(mail.link);
    const person = new SessionClient(server.url);
    const preview = await person.post('/api/v1/invitations/lookup', { body: { token } });
    expect((await json(preview)).data).toMatchObject({ organisation: '<b>Bondi & Co</b>', email, role: 'admin' });
    const accepted = await person.post('/api/v1/invitations/accept', { body: { token, password: NEW_PASSWORD } });
    expect(accepted.status).toBe(200);
    expect((await json(accepted)).data.organisation.role).toBe('admin');
  });

  it('a reset asked for by email arrives by e-mail, and its link sets the password', async () => {
    const org = await organisation(server);
    const before = smtp.received.length;
    const anon = new SessionClient(server.url);
    const asked = await anon.post('/api/v1/auth/password-reset/request', { body: { email: org.member.email } });
    expect(asked.status).toBe(202);
    expect(await json(asked)).toEqual({ success: true, data: { mail_enabled: true } });
    const nobody = await anon.post('/api/v1/auth/password-reset/request', { body: { email: emailFor('nobody') } });
    expect(await json(nobody)).toEqual({ success: true, data: { mail_enabled: true } });
    await server.runtime.passwordResets.drain();
    expect(smtp.received.slice(before).map((m) => m.to)).toEqual([[org.member.email]]);

    const mail = mailTo(org.member.email, before);
    expect(mail.link).toMatch(/\/console\/reset-password#/);
    expect(header(mail.raw, 'Subject')).toBe('Reset your Disaster Telehealth Eligibility password');
    expect(mail.text).toContain('Someone (hopefully you) asked to reset the password');
    const reset = await anon.post('/api/v1/auth/password-reset', {
      body: { token: tokenOf(mail.link), password: NEW_PASSWORD },
    });
    expect(reset.status).toBe(200);
    expect((await new SessionClient(server.url).login(org.member.email, NEW_PASSWORD)).status).toBe(200);
    expect((await new SessionClient(server.url).login(org.member.email, PASSWORD)).status).toBe(401);
  });

  it("an admin's reset link is e-mailed to the member too", async () => {
    const org = await organisation(server);
    const admin = await signedIn(server, org.admin);
    const before = smtp.received.length;
    const res = await admin.post(`/api/v1/team/members/${org.member.accountId}/reset-link`);
    expect(res.status).toBe(201);
    const issued = successEnvelope(ResetLinkData).parse(await json(res)).data;
    secrets.add(issued.link).add(tokenOf(issued.link));
    expect(issued.emailed).toBe(true);
    const mail = mailTo(org.member.email, before);
    expect(mail.link).toBe(issued.link);
    expect(mail.text).toContain(`${org.admin.email} issued a link to set a new password`);
  });
});

describe('an SMTP server that cannot be reached', () => {
  it('the invitation is made and its link shown, emailed: false; the failure is logged without secrets', async () => {
    const server = await startTestServer({
      config: { SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${await closedPort()}`, MAIL_FROM },
    });
    try {
      const org = await organisation(server);
      const owner = await signedIn(server, org.owner);
      const res = await owner.post('/api/v1/team/invitations', { body: { email: emailFor('unsent'), role: 'member' } });
      expect(res.status).toBe(201);
      const created = successEnvelope(NewInvitationData).parse(await json(res)).data;
      expect(created.emailed).toBe(false);
      const failures = server.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'could not send an e-mail');
      expect(failures).toEqual([expect.objectContaining({ mail: 'invitation', code: expect.any(String) })]);
      const logs = server.logs.join('\n');
      for (const secret of [SMTP_PASSWORD, created.link, tokenOf(created.link), created.invitation.email]) {
        expect(logs.includes(secret), 'a secret in the logs').toBe(false);
      }
    } finally {
      await server.close();
    }
  });
});
