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

/** Billing on (issue #35: invitations need an active subscription); nothing here calls Stripe. */
const BILLING = {
  STRIPE_SECRET_KEY: 'sk_test_invitationMail',
  STRIPE_PRICE_ID: 'price_invitationMail',
  STRIPE_WEBHOOK_SECRET: 'whsec_invitationMail',
  STRIPE_API_BASE: 'http://127.0.0.1:9',
};

/** MAIL_LIMIT_PER_ORGANISATION here: each test's organisation sends at most 10 otherwise. */
const PER_ORGANISATION = 12;

/** An organisation's name chosen to pose as the service (issue #35). */
const POSING = 'URGENT: verify your Medicare account at https://evil.test/login';

/** Marks `accountId`'s address as proved, as its verification link would. */
async function verified(server: TestServer, accountId: string): Promise<void> {
  const store = await server.runtime.storage.accounts();
  await store.update((file) => {
    file.accounts.find((a) => a.id === accountId)!.email_verified_at = new Date().toISOString();
  });
}

/** An organisation whose owner and admin have proved their addresses. */
async function provedOrganisation(server: TestServer) {
  const org = await organisation(server);
  await verified(server, org.owner.accountId);
  await verified(server, org.admin.accountId);
  return org;
}

describe('e-mailed links (SMTP_URL)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let server: TestServer;
  const secrets = new Set<string>([SMTP_PASSWORD, NEW_PASSWORD]);

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({
      config: {
        SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`,
        MAIL_FROM,
        ...BILLING,
        // Set (the default, 30, is what invitations.test.ts's probes meet): fewer mails to wait for.
        MAIL_LIMIT_PER_ORGANISATION: PER_ORGANISATION,
      },
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

  const countTo = (to: string, from = 0) => smtp.received.slice(from).filter((m) => m.to.includes(to)).length;

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

  it("the invitation's e-mail is the service's words: who invited (their proved address), the role, the expiry; the practice's name only at the link", async () => {
    const org = await provedOrganisation(server);
    const owner = await signedIn(server, org.owner);
    // A name typed by whoever signed up: never in the mail, where it could pose as the service.
    const renamed = await owner.request('PATCH', '/api/v1/team', { body: { name: POSING } });
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
      "You are invited to join a practice's team on Disaster Telehealth Eligibility",
    );
    expect(mail.text).toContain(`${org.owner.email} invited you to join their practice's team`);
    expect(mail.text).toContain('as an admin');
    expect(mail.text).toMatch(/expires on \w+day, \d+ \w+ \d{4} at .+ \(Sydney time\)/);
    for (const part of [mail.raw, mail.text, mail.html]) {
      expect(part).not.toMatch(/URGENT|evil\.test|Medicare/);
    }
    expect(mail.html).toContain(`href="${created.link}"`);

    const token = tokenOf(mail.link);
    const person = new SessionClient(server.url);
    const preview = await person.post('/api/v1/invitations/lookup', { body: { token } });
    expect((await json(preview)).data).toMatchObject({ organisation: POSING, email, role: 'admin' });
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
    const org = await provedOrganisation(server);
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

  /** POSTs an invitation of `email`; the answer's status, its error code and its link, if any. */
  async function tryInvite(client: SessionClient, email: string) {
    const res = await client.post('/api/v1/team/invitations', { body: { email, role: 'member' } });
    const body = await json(res);
    if (res.status === 201) secrets.add(body.data.link).add(tokenOf(body.data.link));
    return { status: res.status, code: body.error?.code, retryAfter: res.headers.get('retry-after'), body };
  }

  it('an inviter whose own address is not proved has nothing sent: 403 email_unverified (invite, resend)', async () => {
    const org = await organisation(server);
    const owner = await signedIn(server, org.owner);
    const email = emailFor('unproved');
    const before = smtp.received.length;
    expect(await tryInvite(owner, email)).toMatchObject({ status: 403, code: 'email_unverified' });
    await verified(server, org.owner.accountId);
    const made = await tryInvite(owner, email);
    expect(made.status).toBe(201);
    const admin = await signedIn(server, org.admin);
    const resend = await admin.post(`/api/v1/team/invitations/${made.body.data.invitation.id}/resend`);
    expect(resend.status).toBe(403);
    expect((await json(resend)).error).toEqual({
      code: 'email_unverified',
      message: 'Verify your e-mail address before inviting people',
    });
    expect(countTo(email, before)).toBe(1);
  });

  it('with billing on, an organisation without an active subscription invites nobody: 403 subscription_required', async () => {
    const org = await provedOrganisation(server);
    const owner = await signedIn(server, org.owner);
    const pending = await tryInvite(owner, emailFor('before-lapse'));
    expect(pending.status).toBe(201);
    await server.runtime.accounts.setSubscription(org.owner.email, { status: 'inactive' });
    expect(await tryInvite(owner, emailFor('after-lapse'))).toMatchObject({
      status: 403,
      code: 'subscription_required',
    });
    const resend = await owner.post(`/api/v1/team/invitations/${pending.body.data.invitation.id}/resend`);
    expect((await json(resend)).error.code).toBe('subscription_required');
  });

  it('one address gets at most 5 e-mails an hour, whoever sends them: then 429 mail_limited, nothing more sent', async () => {
    const [a, b] = [await provedOrganisation(server), await provedOrganisation(server)];
    const [ownerA, ownerB] = [await signedIn(server, a.owner), await signedIn(server, b.owner)];
    const target = emailFor('outsider');
    const first = await tryInvite(ownerA, target);
    const resend = (client: SessionClient, id: string) => client.post(`/api/v1/team/invitations/${id}/resend`);
    for (let i = 0; i < 2; i++) expect((await resend(ownerA, first.body.data.invitation.id)).status).toBe(200);
    const second = await tryInvite(ownerB, target);
    const renewed = await resend(ownerB, second.body.data.invitation.id);
    expect(renewed.status).toBe(200);
    const lastLink: string = (await json(renewed)).data.link;
    secrets.add(lastLink).add(tokenOf(lastLink));
    const refused = await resend(ownerB, second.body.data.invitation.id);
    expect(refused.status).toBe(429);
    expect((await json(refused)).error.code).toBe('mail_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(await tryInvite(ownerA, target)).toMatchObject({ status: 429, code: 'mail_limited' });
    expect(countTo(target)).toBe(5);
    // A refused invitation changed nothing: the last link sent still works.
    const last = await new SessionClient(server.url).post('/api/v1/invitations/lookup', {
      body: { token: tokenOf(lastLink) },
    });
    expect(last.status).toBe(200);
  });

  it('one organisation has at most MAIL_LIMIT_PER_ORGANISATION e-mails an hour: invitations and reset links alike, then 429', async () => {
    const org = await provedOrganisation(server);
    const admin = await signedIn(server, org.admin);
    const before = smtp.received.length;
    for (let i = 0; i < PER_ORGANISATION - 1; i++) expect((await tryInvite(admin, emailFor('bulk'))).status).toBe(201);
    expect((await admin.post(`/api/v1/team/members/${org.member.accountId}/reset-link`)).status).toBe(201);
    const refused = await admin.post(`/api/v1/team/members/${org.member.accountId}/reset-link`);
    expect(refused.status).toBe(429);
    expect((await json(refused)).error.code).toBe('mail_limited');
    expect(await tryInvite(admin, emailFor('bulk'))).toMatchObject({ status: 429, code: 'mail_limited' });
    expect(smtp.received.length - before).toBe(PER_ORGANISATION);
  });

  it('over its limit, an address is sent nothing by a reset request or a sign-up, whose answers do not change', async () => {
    const org = await provedOrganisation(server);
    const admin = await signedIn(server, org.admin);
    for (let i = 0; i < 5; i++) {
      const issued = await admin.post(`/api/v1/team/members/${org.member.accountId}/reset-link`);
      expect(issued.status).toBe(201);
      secrets.add((await json(issued)).data.link);
    }
    const before = smtp.received.length;
    const anon = new SessionClient(server.url);
    const asked = await anon.post('/api/v1/auth/password-reset/request', { body: { email: org.member.email } });
    expect(asked.status).toBe(202);
    expect(await json(asked)).toEqual({ success: true, data: { mail_enabled: true } });

    const newcomer = emailFor('newcomer');
    const owner = await signedIn(server, org.owner);
    const invited = await tryInvite(owner, newcomer);
    for (let i = 0; i < 4; i++) {
      const resent = await owner.post(`/api/v1/team/invitations/${invited.body.data.invitation.id}/resend`);
      secrets.add((await json(resent)).data.link);
    }
    const signup = await new SessionClient(server.url).post('/api/v1/signup', {
      body: { email: newcomer, password: NEW_PASSWORD, practice_name: 'Newcomer Clinic' },
    });
    expect(signup.status).toBe(202);
    await server.runtime.passwordResets.drain();
    await server.runtime.signup.drain();
    expect(countTo(org.member.email, before)).toBe(0);
    expect(countTo(newcomer, before)).toBe(5);
    const dropped = server.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'e-mail not sent: mail limit');
    expect(dropped.map((l) => l.mail).sort()).toEqual(['email verification', 'password reset']);
    for (const line of dropped) expect(JSON.stringify(line)).not.toMatch(/@team\.example/);
  });
});

describe('an SMTP server that cannot be reached', () => {
  it('the invitation is made and its link shown, emailed: false; the failure is logged without secrets', async () => {
    const server = await startTestServer({
      config: { SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${await closedPort()}`, MAIL_FROM },
    });
    try {
      const org = await organisation(server);
      await verified(server, org.owner.accountId);
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
