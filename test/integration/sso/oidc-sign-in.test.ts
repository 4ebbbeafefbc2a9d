import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAtIdp, startOidcIdp, type TestIdp } from '../../helpers/oidc-idp';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import {
  callbackOn,
  GOOGLE_APP,
  lastEvent,
  MICROSOFT_APP,
  oidcConnection,
  OTHER_TENANT,
  personAt,
  refusedTo,
  signedInAs,
  signInThrough,
  ssoPractice,
  ssoServerOptions,
  startAt,
  startMicrosoftIdp,
  TENANT,
} from './oidc-world';

// Real OpenID Providers on loopback (oidc-provider), one set per file: two generic issuers (A; B, whose ID tokens
// live a minute), Microsoft's and Google's stand-ins, and C, stopped by the test of an unreachable provider. One
// server on a clock the expiry test moves.
let idpA: TestIdp;
let idpB: TestIdp;
let idpC: TestIdp;
let microsoft: TestIdp;
let google: TestIdp;
let server: TestServer;
let now = Date.now();

beforeAll(async () => {
  [idpA, idpB, idpC, microsoft, google] = await Promise.all([
    startOidcIdp(),
    startOidcIdp({ idTokenTtlSeconds: 60 }),
    startOidcIdp(),
    startMicrosoftIdp(),
    startOidcIdp(),
  ]);
  server = await startTestServer({ ...ssoServerOptions(microsoft, google), clock: () => new Date(now) });
});
afterAll(async () => {
  await server?.close();
  await Promise.all([idpA, idpB, idpC, microsoft, google].map((idp) => idp?.close()));
});

describe('single sign-on with OpenID Connect', () => {
  it('signs a new person in: a member with the default role, the session cookie working, back where they started', async () => {
    const org = await ssoPractice(server, oidcConnection(idpA), { idp: idpA, defaultRole: 'admin' });
    const email = `new@${org.domain}`;
    const login = personAt(idpA, { email });
    const browser = new SessionClient(server.url);
    const authorization = new URL(await startAt(browser, email, '/console/keys'));
    // The start bound the sign-in to this browser: a cookie for sign-in's own routes, as long as the flow lives.
    expect(browser.jar.get('dte.sso')).toMatchObject({
      path: '/api/v1/auth/sso',
      attributes: { httponly: true, samesite: 'Lax', 'max-age': '600' },
    });
    // Authorization code with PKCE (S256), state and nonce, to our one redirect URI.
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      redirect_uri: `${server.url}/api/v1/auth/sso/callback`,
    });
    for (const name of ['state', 'nonce', 'code_challenge']) expect(authorization.searchParams.get(name)).toBeTruthy();

    const answer = await callbackOn(browser, await signInAtIdp(authorization.href, login));
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/console/keys');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(browser.sessionCookie).toBeDefined();
    expect(browser.jar.get('dte.sso')).toBeUndefined();
    const session = await json(await browser.get('/api/v1/auth/session'));
    expect(session.data).toMatchObject({
      authenticated: true,
      account: { email, email_verified: true },
      organisation: { id: org.organisationId, role: 'admin' },
    });
    const events = await server.runtime.audit.read({ organisationId: org.organisationId });
    expect(events.slice(-2).map((e) => [e.event, e.sso_provider])).toEqual([
      ['sso_joined', 'oidc'],
      ['sso_sign_in', 'oidc'],
    ]);
    // No code, state or token in what was logged.
    expect(server.logs.join('\n')).not.toMatch(/code=|state=|id_token/);
  });

  it('links an existing member, and refuses one the team removed', async () => {
    const org = await ssoPractice(server, oidcConnection(idpA), { idp: idpA });
    const member = await org.add('member');
    const linked = await signInThrough(server, idpA, member.email, personAt(idpA, { email: member.email }));
    expect(linked.answer.headers.get('location')).toBe('/console/');
    expect(await signedInAs(linked.browser)).toBe(member.email);
    expect((await lastEvent(server, org.organisationId))?.event).toBe('sso_sign_in');
    const events = await server.runtime.audit.read({ organisationId: org.organisationId });
    expect(events.filter((e) => e.event === 'sso_linked').map((e) => e.email)).toEqual([member.email]);

    const leaver = await org.add('member');
    const removed = await org.ownerClient.request('DELETE', `/api/v1/team/members/${leaver.accountId}`);
    expect(removed.status).toBe(200);
    const refused = await signInThrough(server, idpA, leaver.email, personAt(idpA, { email: leaver.email }));
    expect(refused.answer.headers.get('location')).toBe(refusedTo('sso_member_removed'));
    expect(await signedInAs(refused.browser)).toBeNull();
  });

  it.each([
    [
      'an unverified e-mail address',
      (domain: string) => ({ email: `x@${domain}`, email_verified: false }),
      'sso_email_unverified',
    ],
    ['an address outside the claimed domains', () => ({ email: 'x@elsewhere.example' }), 'sso_email_not_in_domains'],
  ])('refuses %s, audited with the organisation', async (_name, claims, code) => {
    const org = await ssoPractice(server, oidcConnection(idpA), { idp: idpA });
    const { browser, answer } = await signInThrough(
      server,
      idpA,
      `x@${org.domain}`,
      personAt(idpA, claims(org.domain)),
    );
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(refusedTo(code));
    expect(await signedInAs(browser)).toBeNull();
    expect(await lastEvent(server, org.organisationId)).toMatchObject({ event: 'sso_sign_in_refused', reason: code });
  });

  it('refuses a replayed callback, a replayed code, a missing or wrong state, and a cancelled sign-in', async () => {
    const org = await ssoPractice(server, oidcConnection(idpA), { idp: idpA });
    const email = `replay@${org.domain}`;
    const login = personAt(idpA, { email });
    const first = new SessionClient(server.url);
    const callback = await signInAtIdp(await startAt(first, email), login);
    expect((await callbackOn(first, callback)).headers.get('location')).toBe('/console/');

    // The same callback again (its state used): refused before the code is looked at.
    const again = new SessionClient(server.url);
    expect((await callbackOn(again, callback)).headers.get('location')).toBe(refusedTo('sso_failed'));
    // The used code with a state of a new sign-in: the provider refuses the code.
    const fresh = new SessionClient(server.url);
    const state = new URL(await startAt(fresh, email)).searchParams.get('state')!;
    const replayedCode = new URL(callback);
    replayedCode.searchParams.set('state', state);
    expect((await callbackOn(fresh, replayedCode.href)).headers.get('location')).toBe(refusedTo('sso_failed'));
    expect(await lastEvent(server, org.organisationId)).toMatchObject({
      event: 'sso_sign_in_refused',
      reason: 'sso_failed',
    });

    const noState = new URL(callback);
    noState.searchParams.delete('state');
    const wrongState = new URL(callback);
    wrongState.searchParams.set('state', 'not-a-state-we-issued');
    for (const url of [noState, wrongState]) {
      const browser = new SessionClient(server.url);
      expect((await callbackOn(browser, url.href)).headers.get('location')).toBe(refusedTo('sso_failed'));
      expect(await signedInAs(browser)).toBeNull();
    }
    const unattributed = (await server.runtime.audit.read()).filter(
      (e) => e.event === 'sso_sign_in_refused' && e.organisation_id === undefined && e.reason === 'sso_failed',
    );
    expect(unattributed.length).toBeGreaterThanOrEqual(2);

    const cancelled = new SessionClient(server.url);
    const abort = await signInAtIdp(await startAt(cancelled, email), login, 'abort');
    expect(new URL(abort).searchParams.get('error')).toBe('access_denied');
    expect((await callbackOn(cancelled, abort)).headers.get('location')).toBe(refusedTo('sso_cancelled'));
    expect(await lastEvent(server, org.organisationId)).toMatchObject({ reason: 'sso_cancelled' });
  });

  it('refuses a callback opened in a browser that did not start the sign-in, without redeeming its code (login CSRF)', async () => {
    const org = await ssoPractice(server, oidcConnection(idpA), { idp: idpA });
    const attackerEmail = `attacker@${org.domain}`;
    // Someone starts a sign-in in their own browser and signs in at the provider as themselves…
    const attacker = new SessionClient(server.url);
    const callback = await signInAtIdp(
      await startAt(attacker, attackerEmail),
      personAt(idpA, { email: attackerEmail }),
    );
    // …then has another person's browser open the callback: one without a binding, one bound to its own sign-in.
    const victim = new SessionClient(server.url);
    const victimsOwn = await startAt(victim, `victim@${org.domain}`);
    const redeemed = idpA.tokenRequests;
    const answer = await callbackOn(victim, callback);
    expect(answer.headers.get('location')).toBe(refusedTo('sso_failed'));
    expect(await signedInAs(victim)).toBeNull();
    // A refusal leaves the browser's binding: its own sign-in is still under way.
    expect(victim.jar.get('dte.sso')).toBeDefined();
    expect(idpA.tokenRequests).toBe(redeemed);
    expect(await lastEvent(server, org.organisationId)).toMatchObject({
      event: 'sso_sign_in_refused',
      reason: 'sso_failed',
    });
    // The state was used up by that callback: not even the browser that started can use it now.
    expect((await callbackOn(attacker, callback)).headers.get('location')).toBe(refusedTo('sso_failed'));
    expect(await signedInAs(attacker)).toBeNull();
    expect(idpA.tokenRequests).toBe(redeemed);
    // A browser with no binding at all is refused the same way.
    const bare = new SessionClient(server.url);
    const other = await signInAtIdp(await startAt(attacker, attackerEmail), personAt(idpA, { email: attackerEmail }));
    expect((await callbackOn(bare, other)).headers.get('location')).toBe(refusedTo('sso_failed'));
    expect(await signedInAs(bare)).toBeNull();
    expect(idpA.tokenRequests).toBe(redeemed);
    // The victim's own sign-in, finished after the refusal, signs the victim in.
    const own = await callbackOn(
      victim,
      await signInAtIdp(victimsOwn, personAt(idpA, { email: `victim@${org.domain}` })),
    );
    expect(own.headers.get('location')).toBe('/console/');
    expect(await signedInAs(victim)).toBe(`victim@${org.domain}`);
  });

  it('two sign-ins started in two tabs of one browser: the first one finished signs in (the second start kept its binding)', async () => {
    const org = await ssoPractice(server, oidcConnection(idpA), { idp: idpA });
    const email = `two.tabs@${org.domain}`;
    const browser = new SessionClient(server.url);
    const first = await startAt(browser, email);
    const binding = browser.jar.get('dte.sso')!.value;
    const second = await startAt(browser, email);
    expect(browser.jar.get('dte.sso')!.value).toBe(binding);
    expect(new URL(second).searchParams.get('state')).not.toBe(new URL(first).searchParams.get('state'));
    const answer = await callbackOn(browser, await signInAtIdp(first, personAt(idpA, { email })));
    expect(answer.headers.get('location')).toBe('/console/');
    expect(await signedInAs(browser)).toBe(email);
    // Signed in: the binding is dropped, and the other tab's sign-in has nothing left to finish in this browser.
    expect(browser.jar.get('dte.sso')).toBeUndefined();
  });

  it('refuses a code from another provider where our client ID is registered too (another audience, issuer)', async () => {
    const connection = oidcConnection(idpA);
    const org = await ssoPractice(server, connection, { idp: idpA });
    if (connection.provider !== 'oidc') throw new Error('an OIDC connection');
    await idpB.register({
      clientId: connection.client_id,
      clientSecret: connection.client_secret!,
      redirectUri: `${server.url}/api/v1/auth/sso/callback`,
    });
    const email = `elsewhere@${org.domain}`;
    const browser = new SessionClient(server.url);
    const authorization = new URL(await startAt(browser, email));
    // The person is sent to B with our request instead (the same client ID, state, nonce and PKCE challenge).
    const atB = new URL(`${idpB.issuer}${authorization.pathname}${authorization.search}`);
    const callback = await signInAtIdp(atB.href, personAt(idpB, { email }));
    expect((await callbackOn(browser, callback)).headers.get('location')).toBe(refusedTo('sso_failed'));
    expect(await signedInAs(browser)).toBeNull();
  });

  it('refuses an ID token that has expired by the time it comes back', async () => {
    const org = await ssoPractice(server, oidcConnection(idpB), { idp: idpB });
    const email = `slow@${org.domain}`;
    const browser = new SessionClient(server.url);
    const callback = await signInAtIdp(await startAt(browser, email), personAt(idpB, { email }));
    // B's ID tokens live a minute; openid-client allows 30 s of skew. The flow itself (10 minutes) is still there.
    now += 3 * 60_000;
    expect((await callbackOn(browser, callback)).headers.get('location')).toBe(refusedTo('sso_failed'));
    expect(await lastEvent(server, org.organisationId)).toMatchObject({ reason: 'sso_failed' });
  });

  it('refuses at the start an address whose domain nobody claims: the console for a browser, 404 for JSON', async () => {
    const browser = new SessionClient(server.url);
    const page = await browser.get('/api/v1/auth/sso/start?email=someone%40unclaimed.example', {
      origin: null,
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe(refusedTo('sso_domain_not_claimed'));
    const api = await browser.get('/api/v1/auth/sso/start?email=someone%40unclaimed.example', {
      origin: null,
      headers: { accept: 'application/json' },
    });
    expect(api.status).toBe(404);
    expect(await json(api)).toMatchObject({ success: false, error: { code: 'sso_domain_not_claimed' } });
    const discovered = await json(await browser.get('/api/v1/auth/sso/discover?email=someone%40unclaimed.example'));
    expect(discovered.data).toEqual({ method: 'password' });
  });

  it('limits the starts of one address: 10 in 15 minutes, then 429 with Retry-After', async () => {
    const browser = new SessionClient(server.url);
    const start = () =>
      browser.get('/api/v1/auth/sso/start?email=busy%40unclaimed.example', {
        origin: null,
        headers: { accept: 'application/json' },
      });
    for (let i = 0; i < 10; i++) expect((await start()).status).toBe(404);
    const limited = await start();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await json(limited)).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it("a browser over the starts' limit is sent to the sign-in page's words (sso_busy), not a page of JSON", async () => {
    const browser = new SessionClient(server.url);
    const start = () => browser.get('/api/v1/auth/sso/start?email=hurried%40unclaimed.example', { origin: null });
    for (let i = 0; i < 10; i++) {
      expect((await start()).headers.get('location')).toBe(refusedTo('sso_domain_not_claimed'));
    }
    const limited = await start();
    expect(limited.status).toBe(303);
    expect(limited.headers.get('location')).toBe(refusedTo('sso_busy'));
  });

  it('tells the provider was unreachable, at the start (its configuration) and at the callback (its token endpoint)', async () => {
    const org = await ssoPractice(server, oidcConnection(idpC), { idp: idpC });
    const email = `far@${org.domain}`;
    const login = personAt(idpC, { email });
    const discovered = await json(await new SessionClient(server.url).get(`/api/v1/auth/sso/discover?email=${email}`));
    expect(discovered.data).toMatchObject({ method: 'sso', provider: 'oidc', password_allowed: true });

    const browser = new SessionClient(server.url);
    const callback = await signInAtIdp(await startAt(browser, email), login);
    await idpC.stop();
    try {
      expect((await callbackOn(browser, callback)).headers.get('location')).toBe(refusedTo('sso_idp_unreachable'));
      expect(await lastEvent(server, org.organisationId)).toMatchObject({ reason: 'sso_idp_unreachable' });
      // Once its discovery document is no longer kept, a start cannot read it either.
      now += 6 * 60_000;
      const page = await browser.get(`/api/v1/auth/sso/start?email=${email}`, { origin: null });
      expect(page.headers.get('location')).toBe(refusedTo('sso_idp_unreachable'));
      const api = await browser.get(`/api/v1/auth/sso/start?email=${email}`, {
        origin: null,
        headers: { accept: 'application/json' },
      });
      expect(api.status).toBe(502);
    } finally {
      await idpC.start();
    }
  });

  it('Microsoft: signs in a person of the tenant the organisation named, and refuses another tenant’s token', async () => {
    const org = await ssoPractice(
      server,
      { provider: 'microsoft', tenant_id: TENANT },
      {
        idp: microsoft,
        client: MICROSOFT_APP,
      },
    );
    const inside = `doctor@${org.domain}`;
    const ok = await signInThrough(server, microsoft, inside, personAt(microsoft, { email: inside, tid: TENANT }));
    expect(ok.answer.headers.get('location')).toBe('/console/');
    expect(await signedInAs(ok.browser)).toBe(inside);

    // Entra ID says a verified address by its optional claim xms_edov, without email_verified.
    const edov = `registrar@${org.domain}`;
    const claims = { email: edov, tid: TENANT, email_verified: undefined, xms_edov: true };
    const byEdov = await signInThrough(server, microsoft, edov, personAt(microsoft, claims));
    expect(await signedInAs(byEdov.browser)).toBe(edov);

    const guest = `guest@${org.domain}`;
    const other = await signInThrough(
      server,
      microsoft,
      guest,
      personAt(microsoft, { email: guest, tid: OTHER_TENANT }),
    );
    expect(other.answer.headers.get('location')).toBe(refusedTo('sso_wrong_tenant'));
    expect(await lastEvent(server, org.organisationId)).toMatchObject({
      reason: 'sso_wrong_tenant',
      sso_provider: 'microsoft',
    });
  });

  it('Google: sends the Workspace domain as a hint, signs its people in, and refuses another domain’s token', async () => {
    const org = await ssoPractice(
      server,
      { provider: 'google', domain: 'placeholder.example' },
      {
        idp: google,
        client: GOOGLE_APP,
      },
    );
    const inside = `nurse@${org.domain}`;
    const browser = new SessionClient(server.url);
    const authorization = await startAt(browser, inside);
    expect(new URL(authorization).searchParams.get('hd')).toBe(org.domain);
    const ok = await callbackOn(
      browser,
      await signInAtIdp(authorization, personAt(google, { email: inside, hd: org.domain })),
    );
    expect(ok.headers.get('location')).toBe('/console/');
    expect(await signedInAs(browser)).toBe(inside);

    const personal = `nurse2@${org.domain}`;
    const other = await signInThrough(server, google, personal, personAt(google, { email: personal, hd: 'gmail.com' }));
    expect(other.answer.headers.get('location')).toBe(refusedTo('sso_wrong_domain'));
    expect(await lastEvent(server, org.organisationId)).toMatchObject({ reason: 'sso_wrong_domain' });
  });
});
