import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFICATION_DAYS } from '../../../shared/api/signup';
import { AccountService } from '../../../server/accounts/account-service';
import type { AccountStore } from '../../../server/accounts/account-records';
import { openStorage, type Storage } from '../../../server/backends/registry';
import { createLogger } from '../../../server/logger';
import type { Mailer, MailMessage } from '../../../server/mail/mailer';
import { SignupService } from '../../../server/signup/signup-service';
import { backendEnv, testBackend } from '../../helpers/shared-backends';
import { tempDir } from '../../helpers/temp-dir';

/**
 * SignupService's own rules, called as a service over the storage the server opens (JSON files here; PostgreSQL and
 * Redis in the integration-shared run): the throttle on asking, the link's lifetime and single use, the proof kept.
 * The HTTP tests beside this one (signup.test.ts, signup-mail.test.ts) check the answers built on them.
 */

const DAY_MS = 24 * 3600_000;
const PASSWORD = 'correct horse battery staple';
const ORIGIN = 'https://eligibility.example';
const LIMITS = { perAccount: 2, perIp: 20, windowMs: 15 * 60_000 };
const silent = createLogger('silent');
const NOTICE = 'Someone tried to sign up for Disaster Telehealth Eligibility with your address';

let now = new Date('2026-03-02T00:00:00.000Z');
const clock = () => now;
const storages: Storage[] = [];
const sent: MailMessage[] = [];
const mailer: Mailer = {
  enabled: true,
  send: async (message) => {
    sent.push(message);
    return true;
  },
  close: async () => undefined,
};

let dataDir: string;
let store: AccountStore;
let accounts: AccountService;
let signup: SignupService;

/** The storage as a server opens it, on this file's data directory (or database), and a sign-up service over it. */
async function open(): Promise<{ store: AccountStore; accounts: AccountService; signup: SignupService }> {
  const env = await backendEnv(dataDir);
  const storage = await openStorage(
    { DATA_DIR: dataDir, REDIS_KEY_PREFIX: 'dte:', ...env },
    { logger: silent, clock, watch: false },
  );
  storages.push(storage);
  const store = await storage.accounts();
  const audit = await storage.audit();
  const accounts = new AccountService(store, audit, clock);
  const throttle = await storage.loginThrottle(LIMITS, () => Date.now());
  const signup = new SignupService({ accounts, audit, mailer, throttle, clock, logger: silent });
  return { store, accounts, signup };
}

beforeAll(async () => {
  dataDir = await tempDir('dte-signup-service-');
  ({ store, accounts, signup } = await open());
});

afterAll(async () => {
  for (const storage of storages.splice(0)) await storage.close();
});

const request = (email: string) => ({ practice_name: 'Riverside Family Practice', email, password: PASSWORD });

/** Signs `email` up and waits for its write and mail after the answer; its verification link's token. */
async function signedUp(email: string, ip = '203.0.113.1'): Promise<string> {
  const from = sent.length;
  await signup.signUp(request(email), ip, ORIGIN);
  await signup.drain();
  const mail = sent.slice(from).find((m) => m.to === email);
  const token = mail?.text.match(/\/console\/verify-email#([A-Za-z0-9_-]+)/)?.[1];
  if (!token) throw new Error(`no verification link mailed to ${email}`);
  return token;
}

describe(`SignupService (${testBackend()} storage)`, () => {
  it('creates the owner, an inactive organisation and one link stored as its hash only, after the answer', async () => {
    const email = 'owner@riverside.example';
    const token = await signedUp(email);
    const account = accounts.findByEmail(email)!;
    expect(account.email_verified_at).toBeNull();
    const member = accounts.membershipOf(account.id)!;
    expect(member.role).toBe('owner');
    expect(accounts.organisation(member.organisation_id)!.name).toBe('Riverside Family Practice');
    const links = store.current.email_verifications.filter((l) => l.account_id === account.id);
    expect(links).toHaveLength(1);
    expect(JSON.stringify(links)).not.toContain(token);
    expect(links[0]!.expires_at).toBe(new Date(now.getTime() + VERIFICATION_DAYS * DAY_MS).toISOString());
  });

  it('counts every sign-up of an email, whatever becomes of it, and refuses beyond the limit with Retry-After', async () => {
    const email = 'limited@riverside.example';
    await signedUp(email, '203.0.113.2');
    await signup.signUp(request(email), '203.0.113.3', ORIGIN);
    const refused = await signup.signUp(request(email), '203.0.113.4', ORIGIN).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'rate_limited', status: 429 });
    const wait = Number((refused as { headers: Record<string, string> }).headers['Retry-After']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(LIMITS.windowMs / 1000);
    // Another address is counted apart.
    await expect(signup.signUp(request('other@riverside.example'), '203.0.113.4', ORIGIN)).resolves.toBeUndefined();
    await signup.drain();
  });

  it('proves the address with the link once, and a link past its lifetime proves nothing', async () => {
    const email = 'verify@riverside.example';
    const token = await signedUp(email);
    const issuedAt = now;
    try {
      now = new Date(issuedAt.getTime() + VERIFICATION_DAYS * DAY_MS - 1);
      const proof = await signup.verify(token, '203.0.113.5');
      expect(proof).toEqual({ email, verified_at: now.toISOString() });
      expect(accounts.findByEmail(email)!.email_verified_at).toBe(now.toISOString());
      await expect(signup.verify(token, '203.0.113.5')).rejects.toMatchObject({ code: 'invalid_link' });

      const late = 'late@riverside.example';
      now = issuedAt;
      const lateToken = await signedUp(late);
      now = new Date(issuedAt.getTime() + VERIFICATION_DAYS * DAY_MS);
      await expect(signup.verify(lateToken, '203.0.113.5')).rejects.toMatchObject({ code: 'invalid_link' });
      expect(accounts.findByEmail(late)!.email_verified_at).toBeNull();
    } finally {
      now = issuedAt;
    }
  });

  it('a new link replaces the old one; a proved address gets none and is told when it was proved', async () => {
    const email = 'resend@riverside.example';
    const old = await signedUp(email);
    const account = accounts.findByEmail(email)!;
    const organisationId = accounts.membershipOf(account.id)!.organisation_id;
    const from = sent.length;
    await expect(signup.resend(account, organisationId, '203.0.113.6', ORIGIN)).resolves.toEqual({ kind: 'sent' });
    await signup.drain();
    const fresh = sent.slice(from)[0]!.text.match(/verify-email#([A-Za-z0-9_-]+)/)![1]!;
    await expect(signup.verify(old, '203.0.113.6')).rejects.toMatchObject({ code: 'invalid_link' });
    const proof = await signup.verify(fresh, '203.0.113.6');
    const proved = accounts.findByEmail(email)!;
    await expect(signup.resend(proved, organisationId, '203.0.113.6', ORIGIN)).resolves.toEqual({
      kind: 'already_verified',
      verified_at: proof.verified_at,
    });
  });

  it('an address with an account, signed up again, changes nothing and is told how to sign in by mail', async () => {
    const email = 'taken@riverside.example';
    await signedUp(email);
    const before = accounts.findByEmail(email);
    const from = sent.length;
    await signup.signUp({ ...request(email), practice_name: 'Phishing Name' }, '203.0.113.7', ORIGIN);
    await signup.drain();
    expect(accounts.findByEmail(email)).toEqual(before);
    expect(sent.slice(from).map((m) => [m.to, m.subject])).toEqual([[email, NOTICE]]);
  });

  // Only the database sees two instances at once: its unique email makes the later write the notice's case.
  it.runIf(testBackend() === 'shared')(
    'two instances signing up one new address at once make one account; the other address holder is told by mail',
    async () => {
      const email = 'race@riverside.example';
      const other = await open();
      const from = sent.length;
      await Promise.all([
        signup.signUp(request(email), '203.0.113.8', ORIGIN),
        other.signup.signUp(request(email), '203.0.113.9', ORIGIN),
      ]);
      await Promise.all([signup.drain(), other.signup.drain()]);
      await storages[0]!.syncData!();
      const owners = store.current.accounts.filter((a) => a.email === email);
      expect(owners).toHaveLength(1);
      const subjects = sent.slice(from).map((m) => m.subject);
      expect(subjects).toHaveLength(2);
      expect(subjects).toContain(NOTICE);
      expect(subjects.filter((subject) => subject !== NOTICE)).toHaveLength(1);
    },
  );
});
