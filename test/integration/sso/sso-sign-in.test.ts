import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../../server/accounts/account-records';
import { verifyPassword } from '../../../server/accounts/passwords';
import type { DataRuntime } from '../../../server/runtime';
import type { SsoConnection } from '../../../server/sso/sso-directory';
import { SsoSignInService, type SsoIdentity } from '../../../server/sso/sso-sign-in';
import { seedAccount, openDataDir } from '../../helpers/test-server';
import { TestSsoDirectory } from '../../helpers/sso-test-directory';
import { tempDir } from '../../helpers/temp-dir';

// Sign-in's completion over the real account data and audit trail (both backends); the directory is the test's.
let data: DataRuntime;
let service: SsoSignInService;
let connection: SsoConnection;
const directory = new TestSsoDirectory();
let seq = 0;

beforeAll(async () => {
  data = await openDataDir(await tempDir());
  const owner = await seedAccount(data, { email: 'owner@clinic.example' });
  const organisationId = data.accounts.membershipOf(owner.accountId)!.organisation_id;
  connection = {
    organisationId,
    provider: 'oidc',
    oidc: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's' },
    domains: ['clinic.example', 'clinic.example.au'],
    defaultRole: 'admin',
    requireSso: false,
  };
  directory.connections.push(connection);
  service = new SsoSignInService({ accounts: data.accounts, directory, audit: data.audit, trail: data.audit });
});
afterAll(() => data.close());

/** The session a completion starts: what it was started for, and whether it was ended again. */
function sessionSpy() {
  const spy = { started: [] as string[], ended: 0 };
  return {
    spy,
    session: {
      start: async (account: Account) => void spy.started.push(account.id),
      end: async () => void spy.ended++,
    },
  };
}

const identity = (email: string, over: Partial<SsoIdentity> = {}): SsoIdentity => ({
  connection,
  email,
  emailVerified: true,
  provider: 'oidc',
  ...over,
});

async function eventsOf(email: string) {
  return (await data.audit.read({ email })).map((e) => ({
    event: e.event,
    reason: e.reason,
    organisation_id: e.organisation_id,
    sso_provider: e.sso_provider,
    role: e.role,
  }));
}

describe('single sign-on: completing a sign-in', () => {
  it('signs a new person in as a verified member with the default role, audited as joined', async () => {
    const email = `new${++seq}@Clinic.Example.au`;
    const { spy, session } = sessionSpy();
    const account = await service.complete(identity(email), '203.0.113.9', session);

    expect(account.email).toBe(email.toLowerCase());
    expect(account.email_verified_at).not.toBeNull();
    expect(data.accounts.membershipOf(account.id)).toMatchObject({
      organisation_id: connection.organisationId,
      role: 'admin',
    });
    expect(spy).toEqual({ started: [account.id], ended: 0 });
    const by = { organisation_id: connection.organisationId, sso_provider: 'oidc' };
    expect(await eventsOf(email.toLowerCase())).toEqual([
      { event: 'sso_joined', ...by, role: 'admin', reason: undefined },
      { event: 'sso_sign_in', ...by, role: undefined, reason: undefined },
    ]);
    // Nobody knows its password; the obvious guesses do not match it.
    const stored = data.accounts.findById(account.id)!;
    expect(await verifyPassword('', stored.password_hash)).toBe(false);
  });

  it('links an existing member on their first single sign-on only', async () => {
    const member = await data.accounts.createAccount(`member${++seq}@clinic.example`, 'a long password here', {
      organisationId: connection.organisationId,
      role: 'member',
    });
    for (let i = 0; i < 2; i++) {
      const { spy, session } = sessionSpy();
      expect((await service.complete(identity(member.email), '203.0.113.9', session)).id).toBe(member.id);
      expect(spy.started).toEqual([member.id]);
    }
    expect((await eventsOf(member.email)).map((e) => e.event)).toEqual(['sso_linked', 'sso_sign_in', 'sso_sign_in']);
    expect(data.accounts.membershipOf(member.id)?.role).toBe('member');
  });

  it.each([
    ['an unverified address', { emailVerified: false }, 'sso_email_unverified'],
    ['an address outside the domains', { email: 'someone@elsewhere.example' }, 'sso_email_not_in_domains'],
    [
      'an address in a sub-domain of a claimed one',
      { email: 'someone@sub.clinic.example' },
      'sso_email_not_in_domains',
    ],
  ] as const)('refuses %s, audited with the reason', async (_name, over, code) => {
    const email = 'email' in over ? over.email : `unverified${++seq}@clinic.example`;
    const { spy, session } = sessionSpy();
    await expect(service.complete(identity(email, over), '203.0.113.9', session)).rejects.toMatchObject({ code });
    expect(spy.started).toEqual([]);
    expect(data.accounts.findByEmail(email)).toBeUndefined();
    expect(await eventsOf(email)).toEqual([
      {
        event: 'sso_sign_in_refused',
        reason: code,
        organisation_id: connection.organisationId,
        sso_provider: 'oidc',
        role: undefined,
      },
    ]);
  });

  it('refuses a member of another organisation whose address is in the claimed domain', async () => {
    const elsewhere = await seedAccount(data, { email: `elsewhere${++seq}@clinic.example` });
    const { spy, session } = sessionSpy();
    await expect(service.complete(identity(elsewhere.email), '203.0.113.9', session)).rejects.toMatchObject({
      code: 'sso_account_elsewhere',
    });
    expect(spy.started).toEqual([]);
    expect(data.accounts.membershipOf(elsewhere.accountId)?.organisation_id).not.toBe(connection.organisationId);
    expect((await eventsOf(elsewhere.email)).map((e) => [e.event, e.reason])).toEqual([
      ['sso_sign_in_refused', 'sso_account_elsewhere'],
    ]);
  });

  it('refuses a person the team removed, and creates no account for them', async () => {
    const email = `removed${++seq}@clinic.example`;
    directory.removed.add(`${connection.organisationId} ${email}`);
    const { session } = sessionSpy();
    await expect(service.complete(identity(email), '203.0.113.9', session)).rejects.toMatchObject({
      code: 'sso_member_removed',
    });
    expect(data.accounts.findByEmail(email)).toBeUndefined();
    expect((await eventsOf(email)).map((e) => e.reason)).toEqual(['sso_member_removed']);
  });

  it('makes one account of two first sign-ins of the same person at once', async () => {
    const email = `twice${++seq}@clinic.example`;
    const [a, b] = await Promise.all([
      service.complete(identity(email), '203.0.113.9', sessionSpy().session),
      service.complete(identity(email), '203.0.113.9', sessionSpy().session),
    ]);
    expect(a.id).toBe(b.id);
    expect((await eventsOf(email)).filter((e) => e.event === 'sso_joined')).toHaveLength(1);
  });
});
