import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SsoSettingsRequest } from '../../../shared/api/sso';
import { newLinkToken } from '../../../server/accounts/link-tokens';
import { OPERATOR } from '../../../server/team/team-service';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from './session-client';

/**
 * Require SSO in password sign-in (issue #38), on the configured backend (the JSON files; PostgreSQL and Redis in the
 * integration-shared project): the organisation's settings as its owner saved them, read by sign-in through the
 * SSO directory.
 */
const PASSWORD = 'a long enough passphrase';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';

let server: TestServer;
let seq = 0;

beforeAll(async () => {
  server = await startTestServer({
    config: { SSO_MICROSOFT_CLIENT_ID: 'operator-app', SSO_MICROSOFT_CLIENT_SECRET: 'operator-app-secret' },
  });
});
afterAll(() => server?.close());

/** The owner's address proved, as a verification link used proves it (only then may they claim its domain). */
async function verify(accountId: string): Promise<void> {
  const now = server.runtime.clock();
  const { token, hash } = newLinkToken();
  const expires_at = new Date(now.getTime() + 3600_000).toISOString();
  const record = {
    id: randomUUID(),
    account_id: accountId,
    token_hash: hash,
    created_at: now.toISOString(),
    expires_at,
  };
  await server.runtime.accounts.links.issueEmailVerification(record, now);
  await server.runtime.accounts.links.verifyEmail(token, now);
}

/** A practice at a domain of its own: its owner (verified), an admin and a member, and its SSO settings saved. */
async function practice(settings: Omit<SsoSettingsRequest, 'connection' | 'domains'>) {
  const domain = `clinic${++seq}x${process.pid}.com.au`;
  const owner = await seedAccount(server.runtime, { withKey: false, email: `owner@${domain}` });
  await verify(owner.accountId);
  const organisationId = server.runtime.accounts.membershipOf(owner.accountId)!.organisation_id;
  const add = async (role: 'admin' | 'member') => {
    const email = `${role}@${domain}`;
    await server.runtime.team.add(OPERATOR, organisationId, email, PASSWORD, role);
    return { email, password: PASSWORD };
  };
  const save = (require_sso: boolean) =>
    server.runtime.sso.settings.save(
      {
        accountId: owner.accountId,
        organisationId,
        audit: {
          source: 'web',
          ip: '192.0.2.1',
          account_id: owner.accountId,
          email: owner.email,
          organisation_id: organisationId,
        },
      },
      { connection: { provider: 'microsoft', tenant_id: TENANT }, domains: [domain], ...settings, require_sso },
      server.url,
    );
  await save(settings.require_sso);
  return { domain, organisationId, owner, admin: await add('admin'), member: await add('member'), save };
}

const login = (who: { email: string; password: string }, password = who.password) =>
  new SessionClient(server.url).login(who.email, password);

describe('Require SSO: password sign-in of a claimed-domain member', () => {
  it('refuses a member’s and an admin’s right password with 403 sso_required naming the route, audited', async () => {
    const p = await practice({ default_role: 'member', require_sso: true });
    for (const person of [p.member, p.admin]) {
      const res = await login(person);
      expect(res.status).toBe(403);
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(await json(res)).toEqual({
        success: false,
        error: {
          code: 'sso_required',
          message: `Your organisation signs in with single sign-on: continue with Microsoft (GET /api/v1/auth/sso/start?email=${encodeURIComponent(person.email)})`,
          details: ['microsoft'],
        },
      });
    }
    const trail = await server.runtime.audit.read({ organisationId: p.organisationId });
    const refused = trail.filter((e) => e.event === 'login_failed');
    expect(refused.map((e) => [e.email, e.reason, e.sso_provider])).toEqual([
      [p.member.email, 'sso_required', 'microsoft'],
      [p.admin.email, 'sso_required', 'microsoft'],
    ]);
  });

  it('says nothing of the rule to a wrong password or an unknown address: the same 401 as ever', async () => {
    const p = await practice({ default_role: 'member', require_sso: true });
    const wrong = await login(p.member, 'not the password at all');
    const unknown = await login({ email: `nobody@${p.domain}`, password: PASSWORD });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect((await json(res)).error.code).toBe('invalid_credentials');
    }
  });

  it('lets an owner in with the password as a break-glass, audited as such (not also as a login)', async () => {
    const p = await practice({ default_role: 'member', require_sso: true });
    const res = await login(p.owner);
    expect(res.status).toBe(200);
    const trail = await server.runtime.audit.read({ organisationId: p.organisationId });
    const signIns = trail.filter((e) => e.account_id === p.owner.accountId && /login|break_glass/.test(e.event));
    expect(signIns.map((e) => [e.event, e.source, e.sso_provider, e.ip])).toEqual([
      ['break_glass_sign_in', 'web', 'microsoft', '127.0.0.1'],
    ]);
  });

  it('keeps passwords when the organisation does not require SSO, and as soon as it stops requiring it', async () => {
    const p = await practice({ default_role: 'member', require_sso: false });
    expect((await login(p.member)).status).toBe(200);
    await p.save(true);
    expect((await login(p.member)).status).toBe(403);
    await p.save(false);
    expect((await login(p.member)).status).toBe(200);
    const trail = await server.runtime.audit.read({ organisationId: p.organisationId });
    expect(trail.filter((e) => e.email === p.member.email).map((e) => e.event)).toEqual([
      'login',
      'login_failed',
      'login',
    ]);
  });
});
