import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successEnvelope } from '../../../shared/api/envelope';
import { EmailVerifiedData, SignupAcceptedData, VERIFICATION_DAYS } from '../../../shared/api/signup';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import {
  expectError,
  OTHER_PASSWORD,
  PASSWORD,
  plainText,
  sessionOf,
  signUp,
  signUpAndSignIn,
  signupEmail,
  startSmtp,
  subjectOf,
  tokenOf,
} from './signup-world';

const ACCEPTED = successEnvelope(SignupAcceptedData.strict());
const VERIFIED = successEnvelope(EmailVerifiedData.strict());
const VERIFY_LINK = /http:\/\/127\.0\.0\.1:\d+\/console\/verify-email#[A-Za-z0-9_-]{43}/;
const RESET_LINK = /http:\/\/127\.0\.0\.1:\d+\/console\/reset-password#[A-Za-z0-9_-]{43}/;
const NEW_PASSWORD = 'the new passphrase from a reset';
const DAY_MS = 24 * 3600_000;

describe('sign-up with e-mail (SMTP_URL)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let server: TestServer;
  /** How far the server's clock is ahead of the real one. */
  let ahead = 0;
  const secrets = new Set<string>([PASSWORD, OTHER_PASSWORD, NEW_PASSWORD]);

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({
      config: { SIGNUP: 'on', SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'DTE <noreply@dte.example>' },
      auth: { loginLimits: { perAccount: 50, perIp: 1000 } },
      clock: () => new Date(Date.now() + ahead),
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

  /** The messages sent to `to` since `from`, once every mail answered for has gone. */
  async function mailsTo(to: string, from: number) {
    await server.runtime.signup.drain();
    await server.runtime.passwordResets.drain();
    return smtp.received
      .slice(from)
      .filter((m) => m.to.includes(to))
      .map((m) => ({ subject: subjectOf(m.raw), text: plainText(m.raw) }));
  }

  /** The one verification link e-mailed to `to` since `from`. */
  async function verificationLink(to: string, from: number): Promise<string> {
    const mails = await mailsTo(to, from);
    expect(mails).toHaveLength(1);
    const link = VERIFY_LINK.exec(mails[0]!.text)![0];
    secrets.add(link).add(tokenOf(link));
    return link;
  }

  const verify = (token: string) =>
    new SessionClient(server.url).post('/api/v1/signup/verify-email', { body: { token } });

  it("e-mails a link that confirms the owner's address, once; the session and the audit trail say so", async () => {
    const email = signupEmail('verify');
    const before = smtp.received.length;
    const { client, res } = await signUp(server, { practice_name: 'Bondi <Clinic>', email, password: PASSWORD });
    expect(res.status).toBe(202);
    expect(ACCEPTED.parse(await json(res)).data).toEqual({ email, verification: 'sent' });
    await server.runtime.signup.drain();
    expect((await client.login(email, PASSWORD)).status).toBe(200);
    expect((await sessionOf(client)).account.email_verified).toBe(false);

    const mails = await mailsTo(email, before);
    expect(mails[0]!.subject).toBe('Confirm your e-mail address for Disaster Telehealth Eligibility');
    expect(mails[0]!.text).toContain('account was created with this address');
    // Whoever signs up may type anyone's address: what they typed is not repeated to it (issue #35).
    expect(mails[0]!.text).not.toContain('Bondi');
    expect(mails[0]!.text).toMatch(/expires on \w+day, \d+ \w+ \d{4} at .+ \(Sydney time\)/);
    const link = await verificationLink(email, before);

    const verified = await verify(tokenOf(link));
    expect(verified.status).toBe(200);
    const data = VERIFIED.parse(await json(verified)).data;
    expect(data).toEqual({ email, verified_at: expect.any(String) });
    expect((await sessionOf(client)).account.email_verified).toBe(true);
    const organisationId = (await sessionOf(client)).organisation.id;
    const events = await server.runtime.audit.read({ organisationId });
    expect(events.find((e) => e.event === 'email_verified')).toMatchObject({
      source: 'web',
      email,
      organisation_id: organisationId,
    });
    // Used up.
    await expectError(await verify(tokenOf(link)), 400, 'invalid_link');
    // Proved already: asking for a new link sends nothing and says when.
    const again = await client.post('/api/v1/signup/verification');
    expect(again.status).toBe(200);
    expect(VERIFIED.parse(await json(again)).data).toEqual(data);
    expect(await mailsTo(email, before)).toHaveLength(1);
  });

  it('an address with an account gets the same answer and a notice by mail; nothing else changes', async () => {
    const email = signupEmail('exists');
    const first = await signUp(server, { practice_name: 'Original', email, password: PASSWORD });
    // The first sign-up's account made and its verification mail gone first, so only the notice comes after.
    await server.runtime.signup.drain();
    const account = server.runtime.accounts.findByEmail(email)!;
    const before = smtp.received.length;
    const second = await signUp(server, { practice_name: 'Phishing Name', email, password: OTHER_PASSWORD });
    expect(second.res.status).toBe(202);
    expect(await json(second.res)).toEqual(await json(first.res));
    expect((await sessionOf(second.client)).authenticated).toBe(false);
    expect(server.runtime.accounts.findByEmail(email)).toEqual(account);

    const mails = await mailsTo(email, before);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Someone tried to sign up for Disaster Telehealth Eligibility with your address');
    expect(mails[0]!.text).toContain('already has an account');
    expect(mails[0]!.text).toMatch(/http:\/\/127\.0\.0\.1:\d+\/console\/\r?\n/);
    expect(mails[0]!.text).toContain('Forgot password?');
    expect(mails[0]!.text).not.toContain('Phishing Name');
    expect(mails[0]!.text).not.toMatch(VERIFY_LINK);
  });

  it('a new link replaces the old one; a reset by link proves the address too and ends the pending link', async () => {
    const email = signupEmail('resend');
    const start = smtp.received.length;
    const client = await signUpAndSignIn(server, { practice_name: 'Resend', email, password: PASSWORD });
    const old = await verificationLink(email, start);
    const from = smtp.received.length;
    const res = await client.post('/api/v1/signup/verification');
    expect(res.status).toBe(202);
    expect(ACCEPTED.parse(await json(res)).data).toEqual({ email, verification: 'sent' });
    const fresh = await verificationLink(email, from);
    expect(fresh).not.toBe(old);
    await expectError(await verify(tokenOf(old)), 400, 'invalid_link');

    const resetFrom = smtp.received.length;
    const anon = new SessionClient(server.url);
    expect((await anon.post('/api/v1/auth/password-reset/request', { body: { email } })).status).toBe(202);
    const resetMail = (await mailsTo(email, resetFrom))[0]!;
    const resetLink = RESET_LINK.exec(resetMail.text)![0];
    secrets.add(resetLink).add(tokenOf(resetLink));
    const reset = await anon.post('/api/v1/auth/password-reset', {
      body: { token: tokenOf(resetLink), password: NEW_PASSWORD },
    });
    expect(reset.status).toBe(200);
    expect((await json(reset)).data.account.email_verified).toBe(true);
    await expectError(await verify(tokenOf(fresh)), 400, 'invalid_link');
  });

  it('an expired link is refused and purged', async () => {
    const email = signupEmail('expired');
    const start = smtp.received.length;
    await signUp(server, { practice_name: 'Late', email, password: PASSWORD });
    const link = await verificationLink(email, start);
    ahead = VERIFICATION_DAYS * DAY_MS + 60_000;
    try {
      await expectError(await verify(tokenOf(link)), 400, 'invalid_link');
      expect(await server.runtime.signup.purgeExpired()).toBeGreaterThanOrEqual(1);
      expect(server.runtime.accounts.findByEmail(email)!.email_verified_at).toBeNull();
    } finally {
      ahead = 0;
    }
  });
});
