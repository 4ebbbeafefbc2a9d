import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samlServiceProvider } from '../../../server/sso/sso-urls';
import { TestSamlIdp } from '../../helpers/saml-idp';
import { testBackend } from '../../helpers/shared-backends';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { json, SessionClient } from '../auth/session-client';
import { ACS, answer, begin, FINISH, FORM, IDP_ORIGIN, postResponse, samlPractice, type Practice } from './saml-world';

async function eventsOf(server: TestServer, organisationId: string) {
  return (await server.runtime.audit.read({ organisationId })).filter((e) => e.event.startsWith('sso_sign_in'));
}

describe('SAML sign-in through the ACS', () => {
  let server: TestServer;
  let idp: TestSamlIdp;
  let practice: Practice;

  beforeAll(async () => {
    [server, idp] = await Promise.all([startTestServer(), TestSamlIdp.start()]);
    practice = await samlPractice(server, idp);
  });
  afterAll(() => server?.close());

  it('a signed response: 303 to the return path with a session; the new person joined, audited with SAML', async () => {
    const client = new SessionClient(server.url);
    const request = await begin(client, practice, { returnTo: '/console/team' });
    // What the owner was told to register at the IdP is what sign-in asks with.
    expect(request).toMatchObject({
      issuer: practice.serviceProvider.entity_id,
      acsUrl: practice.serviceProvider.acs_url,
    });
    expect(client.jar.get('dte.sso')?.path).toBe('/api/v1/auth/sso');
    const email = `gp@${practice.domain}`;
    // The ACS checks the response and sends the browser on to the finish, same site, with a one-time ticket.
    const posted = await postResponse(client, idp.answer(request, email));
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toMatch(/^\/api\/v1\/auth\/sso\/saml\/finish\?ticket=[\w-]{43}$/);
    expect(posted.headers.getSetCookie()).toEqual([]);
    const res = await client.get(posted.headers.get('location')!, { origin: null });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/team');
    expect(client.jar.get('dte.sso')).toBeUndefined();
    const session = await json(await client.get('/api/v1/auth/session'));
    expect(session.data).toMatchObject({
      authenticated: true,
      account: { email, email_verified: true },
      organisation: { id: practice.organisationId, role: 'member' },
    });
    const events = await server.runtime.audit.read({ email });
    expect(events.map((e) => [e.event, e.sso_provider])).toEqual([
      ['sso_joined', 'saml'],
      ['sso_sign_in', 'saml'],
    ]);
  });

  it('a refused response: 303 to the console’s sign-in with the reason, audited with the organisation', async () => {
    const request = await begin(new SessionClient(server.url), practice);
    const other = samlServiceProvider(server.url, 'another-organisation').entity_id;
    const client = new SessionClient(server.url);
    const res = await postResponse(client, idp.answer(request, `gp@${practice.domain}`, { audience: other }));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/?sso_error=sso_failed');
    expect(client.sessionCookie).toBeUndefined();
    expect((await eventsOf(server, practice.organisationId)).at(-1)).toMatchObject({
      event: 'sso_sign_in_refused',
      reason: 'sso_failed',
      organisation_id: practice.organisationId,
      sso_provider: 'saml',
      account_id: null,
    });
  });

  it('the same response posted again: refused (its request was answered)', async () => {
    const client = new SessionClient(server.url);
    const request = await begin(client, practice);
    const response = idp.answer(request, `again@${practice.domain}`);
    expect((await answer(client, response)).headers.get('location')).toBe('/console/');
    const replay = await postResponse(new SessionClient(server.url), response);
    expect(replay.headers.get('location')).toBe('/console/?sso_error=sso_failed');
  });

  it('a browser that still holds a session cookie is signed in anew', async () => {
    const client = new SessionClient(server.url);
    const first = await begin(client, practice);
    await answer(client, idp.answer(first, `first@${practice.domain}`));
    const before = client.sessionCookie;
    expect(before).toBeDefined();
    const second = await begin(client, practice);
    const res = await answer(client, idp.answer(second, `second@${practice.domain}`));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/');
    expect(client.sessionCookie).not.toBe(before);
    expect((await json(await client.get('/api/v1/auth/session'))).data.account.email).toBe(`second@${practice.domain}`);
  });

  it('an address outside the claimed domains: refused in words, audited with the address', async () => {
    const request = await begin(new SessionClient(server.url), practice);
    const res = await postResponse(new SessionClient(server.url), idp.answer(request, 'gp@elsewhere.com.au'));
    expect(res.headers.get('location')).toBe('/console/?sso_error=sso_email_not_in_domains');
    expect((await eventsOf(server, practice.organisationId)).at(-1)).toMatchObject({
      reason: 'sso_email_not_in_domains',
      email: 'gp@elsewhere.com.au',
    });
  });

  it('a response carried to another browser signs nobody in there; the finish’s ticket counts once (login CSRF)', async () => {
    // Someone starts in their own browser and has their IdP's answer posted from another person's browser: the ACS
    // accepts the response (it is valid), but the finish is opened without the starter's binding.
    const starter = new SessionClient(server.url);
    const request = await begin(starter, practice);
    const victim = new SessionClient(server.url);
    const carried = await answer(victim, idp.answer(request, `carried@${practice.domain}`));
    expect(carried.headers.get('location')).toBe('/console/?sso_error=sso_failed');
    expect(victim.sessionCookie).toBeUndefined();
    expect((await eventsOf(server, practice.organisationId)).at(-1)).toMatchObject({
      event: 'sso_sign_in_refused',
      reason: 'sso_failed',
      email: `carried@${practice.domain}`,
    });

    // A binding of another sign-in (the victim's own, started in its browser) is no better.
    const own = new SessionClient(server.url);
    await begin(own, practice);
    const mine = new SessionClient(server.url);
    const posted = await postResponse(mine, idp.answer(await begin(mine, practice), `other@${practice.domain}`));
    const finish = posted.headers.get('location')!;
    const refused = await own.get(finish, { origin: null });
    expect(refused.headers.get('location')).toBe('/console/?sso_error=sso_failed');
    expect(own.sessionCookie).toBeUndefined();
    // That ticket was used: the browser that started cannot use it after.
    expect((await mine.get(finish, { origin: null })).headers.get('location')).toBe('/console/?sso_error=sso_failed');
    expect(mine.sessionCookie).toBeUndefined();

    // A ticket that signed its browser in, opened again with the same binding: refused.
    const twice = new SessionClient(server.url);
    const onceMore = await postResponse(twice, idp.answer(await begin(twice, practice), `twice@${practice.domain}`));
    const binding = twice.jar.get('dte.sso')!;
    const ticket = onceMore.headers.get('location')!;
    expect((await twice.get(ticket, { origin: null })).headers.get('location')).toBe('/console/');
    twice.jar.set(binding);
    expect((await twice.get(ticket, { origin: null })).headers.get('location')).toBe('/console/?sso_error=sso_failed');
    // No ticket at all: the same words, never an error page.
    const none = await twice.get(FINISH, { origin: null });
    expect(none.headers.get('location')).toBe('/console/?sso_error=sso_failed');
  });

  it('answers a body that is not the form in the JSON envelope: 415, 413, 400', async () => {
    const client = new SessionClient(server.url);
    const asJson = await client.post(ACS, { body: { SAMLResponse: 'AAAA' }, origin: IDP_ORIGIN });
    expect(asJson.status).toBe(415);
    expect((await json(asJson)).error.code).toBe('unsupported_media_type');
    const huge = await postResponse(client, 'A'.repeat(300 * 1024));
    expect(huge.status).toBe(413);
    expect((await json(huge)).error.code).toBe('payload_too_large');
    const none = await client.post(ACS, { body: 'RelayState=x', headers: FORM, origin: IDP_ORIGIN });
    expect(none.status).toBe(400);
    expect((await json(none)).error.code).toBe('invalid_request');
    const notBase64 = await postResponse(client, '<samlp:Response/>');
    expect(notBase64.status).toBe(400);
  });

  it('publishes the SP metadata of an organisation with SAML; 404 in the envelope for one without', async () => {
    const sp = practice.serviceProvider;
    const res = await fetch(sp.metadata_url!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/samlmetadata\+xml/);
    const xml = await res.text();
    expect(xml).toContain(`entityID="${sp.entity_id}"`);
    expect(xml).toContain(`Location="${sp.acs_url}"`);
    expect(xml).toContain('urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress');
    expect(xml).toContain('WantAssertionsSigned="true"');
    const plain = await seedAccount(server.runtime, { withKey: false });
    const without = server.runtime.accounts.membershipOf(plain.accountId)!.organisation_id;
    const missing = await fetch(samlServiceProvider(server.url, without).metadata_url);
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('sso_not_configured');
  });
});

describe.runIf(testBackend() === 'shared')('SAML on two instances (PostgreSQL and Redis)', () => {
  it('started on A and answered on B; one assertion accepted once across both', async () => {
    // Behind one address (PUBLIC_URL), as a load balancer's instances are: the same entity ID and ACS on both.
    const origin = 'https://dte.test.example';
    const options = { dataDir: await tempDir(), auth: { publicOrigins: [origin] } };
    const [a, b, idp] = await Promise.all([
      startTestServer(options),
      startTestServer({ ...options, declarations: false }),
      TestSamlIdp.start(),
    ]);
    try {
      const practice = await samlPractice(a, idp, origin);
      const email = `gp@${practice.domain}`;
      const browser = new SessionClient(a.url);
      const onA = await begin(browser, practice, { origin });
      expect(onA).toMatchObject({ issuer: practice.serviceProvider.entity_id, acsUrl: `${origin}${ACS}` });
      const assertion = idp.signedAssertion({ issuer: idp.entityId, audience: onA.issuer, nameId: email });
      const response = idp.response([assertion.xml], { inResponseTo: onA.id });
      // The same browser behind the one address: the ACS on B, the finish on A (its ticket shared).
      const posted = await postResponse(new SessionClient(b.url), response);
      expect((await browser.get(posted.headers.get('location')!, { origin: null })).headers.get('location')).toBe(
        '/console/',
      );
      expect(await json(await browser.get('/api/v1/auth/session'))).toMatchObject({ data: { account: { email } } });
      // The same signed assertion, in a response to a new request of B's: A knows B accepted it.
      const onB = await begin(new SessionClient(b.url), practice, { origin });
      const replay = idp.response([assertion.xml], { inResponseTo: onB.id });
      const refused = await postResponse(new SessionClient(a.url), replay);
      expect(refused.headers.get('location')).toBe('/console/?sso_error=sso_failed');
      expect(a.logs.some((line) => line.includes('replayed'))).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
