import { beforeAll, describe, expect, it } from 'vitest';
import type { Account, Member } from '../../../server/accounts/account-records';
import type { AccountService } from '../../../server/accounts/account-service';
import { hashPassword } from '../../../server/accounts/passwords';
import type { AuditInput } from '../../../server/audit/audit-log';
import { LoginThrottle } from '../../../server/auth/login-throttle';
import { ContractError } from '../../../server/contract-error';
import { SignInService } from '../../../server/auth/sign-in';
import { RequireSso } from '../../../server/sso/require-sso';
import type { SsoConnection, SsoDirectory } from '../../../server/sso/sso-directory';

const PASSWORD = 'correct horse battery staple';
const IP = '192.0.2.7';

/** The directory as the settings would have it: clinic.example claimed by org-1, which requires SSO. */
function directory(connections: SsoConnection[]): Pick<SsoDirectory, 'forDomain'> & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    forDomain: async (domain) => {
      asked.push(domain);
      return connections.find((c) => c.domains.includes(domain));
    },
  };
}

const connection = (over: Partial<SsoConnection> = {}): SsoConnection => ({
  organisationId: 'org-1',
  provider: 'microsoft',
  microsoft: { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47' },
  domains: ['clinic.example'],
  defaultRole: 'member',
  requireSso: true,
  ...over,
});

describe('RequireSso: what a right password is worth', () => {
  const member = (role: Member['role'], organisation_id = 'org-1') => ({ role, organisation_id });

  it('refuses a member or admin of the organisation that requires SSO for the domain; lets an owner in as break-glass', async () => {
    const rule = new RequireSso(directory([connection()]));
    expect(await rule.passwordVerdict('ann@Clinic.Example', member('member'))).toEqual({
      kind: 'sso_required',
      provider: 'microsoft',
    });
    expect(await rule.passwordVerdict('bob@clinic.example', member('admin'))).toEqual({
      kind: 'sso_required',
      provider: 'microsoft',
    });
    expect(await rule.passwordVerdict('own@clinic.example', member('owner'))).toEqual({
      kind: 'break_glass',
      provider: 'microsoft',
    });
  });

  it('keeps passwords where SSO is not required, the domain is not claimed, or the account is elsewhere', async () => {
    const optional = new RequireSso(directory([connection({ requireSso: false })]));
    expect(await optional.passwordVerdict('ann@clinic.example', member('member'))).toEqual({ kind: 'password' });
    const required = new RequireSso(directory([connection()]));
    expect(await required.passwordVerdict('ann@other.example', member('member'))).toEqual({ kind: 'password' });
    expect(await required.passwordVerdict('ann@clinic.example', member('member', 'org-2'))).toEqual({
      kind: 'password',
    });
    expect(await required.passwordVerdict('ann@clinic.example', undefined)).toEqual({ kind: 'password' });
  });
});

describe('RequireSso when the connection cannot be read whole (its client secret no longer opens)', () => {
  const broken: Pick<SsoDirectory, 'forDomain'> = {
    forDomain: async () => {
      throw new ContractError('sso_misconfigured');
    },
  };

  it('lets an owner in as a break-glass (without a provider) and refuses anyone else with the error', async () => {
    const rule = new RequireSso(broken);
    expect(await rule.passwordVerdict('own@clinic.example', { role: 'owner', organisation_id: 'org-1' })).toEqual({
      kind: 'break_glass',
    });
    await expect(
      rule.passwordVerdict('ann@clinic.example', { role: 'member', organisation_id: 'org-1' }),
    ).rejects.toMatchObject({ code: 'sso_misconfigured' });
  });
});

describe('SignInService under Require SSO', () => {
  const accounts: Record<string, { account: Account; member: Member }> = {};
  beforeAll(async () => {
    const password_hash = await hashPassword(PASSWORD);
    for (const [email, role] of [
      ['own@clinic.example', 'owner'],
      ['ann@clinic.example', 'member'],
    ] as const) {
      const id = `acc-${role}`;
      accounts[email] = {
        account: { id, email, password_hash, created_at: new Date().toISOString(), email_verified_at: null },
        member: { organisation_id: 'org-1', account_id: id, role, created_at: new Date().toISOString() },
      };
    }
  });

  function service(sso: Pick<SsoDirectory, 'forDomain'>) {
    const audited: AuditInput[] = [];
    const started: string[] = [];
    const byId = (id: string) => Object.values(accounts).find((a) => a.account.id === id);
    const accountService = {
      findByEmail: (email: string) => accounts[email]?.account,
      membershipOf: (id: string) => byId(id)?.member,
    } as unknown as AccountService;
    const signIn = new SignInService(
      accountService,
      new LoginThrottle({ perAccount: 3, perIp: 50, windowMs: 60_000 }),
      { record: async (event) => void audited.push(event) },
      undefined,
      undefined,
      new RequireSso(sso),
    );
    const attempt = (email: string, password = PASSWORD) =>
      signIn.signIn(email, password, IP, {
        start: async (account) => void started.push(account.email),
        end: async () => undefined,
      });
    return { audited, started, attempt };
  }

  it("refuses a member's right password with 403 sso_required naming the route, audited, no session", async () => {
    const { audited, started, attempt } = service(directory([connection()]));
    await expect(attempt('ann@clinic.example')).rejects.toMatchObject({
      code: 'sso_required',
      status: 403,
      message:
        'Your organisation signs in with single sign-on: continue with Microsoft (GET /api/v1/auth/sso/start?email=ann%40clinic.example)',
      details: ['microsoft'],
    });
    expect(started).toEqual([]);
    expect(audited).toEqual([
      {
        event: 'login_failed',
        source: 'web',
        account_id: 'acc-member',
        email: 'ann@clinic.example',
        organisation_id: 'org-1',
        ip: IP,
        reason: 'sso_required',
        sso_provider: 'microsoft',
      },
    ]);
  });

  it('asks the directory only once the password verified: a wrong one is the same 401 as ever', async () => {
    const sso = directory([connection()]);
    const { audited, attempt } = service(sso);
    await expect(attempt('ann@clinic.example', 'a wrong password')).rejects.toMatchObject({
      code: 'invalid_credentials',
    });
    await expect(attempt('nobody@clinic.example')).rejects.toMatchObject({ code: 'invalid_credentials' });
    expect(sso.asked).toEqual([]);
    expect(audited.map((e) => e.reason)).toEqual(['invalid_credentials', 'invalid_credentials']);
  });

  it('keeps the throttle as it was: refusals for SSO are no failures, wrong passwords still are', async () => {
    const { attempt } = service(directory([connection()]));
    // More refusals than the 3 failures an email may have: none counted.
    for (let i = 0; i < 4; i++) {
      await expect(attempt('ann@clinic.example')).rejects.toMatchObject({ code: 'sso_required' });
    }
    for (let i = 0; i < 3; i++) {
      await expect(attempt('ann@clinic.example', `wrong ${i}`)).rejects.toMatchObject({ code: 'invalid_credentials' });
    }
    await expect(attempt('ann@clinic.example')).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('signs an owner in with the password (break-glass), audited as break_glass_sign_in with the provider', async () => {
    const { audited, started, attempt } = service(directory([connection({ provider: 'google' })]));
    await expect(attempt('own@clinic.example')).resolves.toMatchObject({ email: 'own@clinic.example' });
    expect(started).toEqual(['own@clinic.example']);
    expect(audited).toEqual([
      {
        event: 'break_glass_sign_in',
        sso_provider: 'google',
        source: 'web',
        account_id: 'acc-owner',
        email: 'own@clinic.example',
        organisation_id: 'org-1',
        ip: IP,
      },
    ]);
  });

  it('signs a member in as before when SSO is not required', async () => {
    const { audited, started, attempt } = service(directory([connection({ requireSso: false })]));
    await attempt('ann@clinic.example');
    expect(started).toEqual(['ann@clinic.example']);
    expect(audited.map((e) => e.event)).toEqual(['login']);
  });
});
