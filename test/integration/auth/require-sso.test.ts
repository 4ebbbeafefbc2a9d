import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MICROSOFT_APP, ssoPractice } from '../../helpers/sso-practice';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from './session-client';

/**
 * Require SSO in password sign-in (issue #38), on the configured backend (the JSON files; PostgreSQL and Redis in the
 * integration-shared project): the organisation's settings as its owner saved them, read by sign-in through the
 * SSO directory.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ config: MICROSOFT_APP });
});
afterAll(() => server?.close());

/** A practice requiring SSO or not, with an admin and a member beside its owner. */
async function practice(settings: { require_sso: boolean }) {
  const p = await ssoPractice(server.runtime, { requireSso: settings.require_sso });
  return { ...p, admin: await p.add('admin'), member: await p.add('member') };
}

const login = (who: { email: string; password: string }, password = who.password) =>
  new SessionClient(server.url).login(who.email, password);

describe('Require SSO: password sign-in of a claimed-domain member', () => {
  it('refuses a member’s and an admin’s right password with 403 sso_required naming the route, audited', async () => {
    const p = await practice({ require_sso: true });
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
    const p = await practice({ require_sso: true });
    const wrong = await login(p.member, 'not the password at all');
    const unknown = await login({ email: `nobody@${p.domain}`, password: p.member.password });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect((await json(res)).error.code).toBe('invalid_credentials');
    }
  });

  it('lets an owner in with the password as a break-glass, audited as such (not also as a login)', async () => {
    const p = await practice({ require_sso: true });
    const res = await login(p.owner);
    expect(res.status).toBe(200);
    const trail = await server.runtime.audit.read({ organisationId: p.organisationId });
    const signIns = trail.filter((e) => e.account_id === p.owner.accountId && /login|break_glass/.test(e.event));
    expect(signIns.map((e) => [e.event, e.source, e.sso_provider, e.ip])).toEqual([
      ['break_glass_sign_in', 'web', 'microsoft', '127.0.0.1'],
    ]);
  });

  it('keeps passwords when the organisation does not require SSO, and as soon as it stops requiring it', async () => {
    const p = await practice({ require_sso: false });
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
