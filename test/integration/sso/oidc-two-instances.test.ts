import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAtIdp, startOidcIdp, type TestIdp } from '../../helpers/oidc-idp';
import { testBackend } from '../../helpers/shared-backends';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { SessionClient } from '../auth/session-client';
import { callbackOn, CALLBACK, oidcConnection, personAt, refusedTo, signedInAs, startAt } from './oidc-world';
import { verifyAddress } from '../../helpers/verified-address';
import { ENCRYPTION_KEY, practiceDomain } from './sso-world';

// Two instances of one deployment on PostgreSQL and Redis, behind one public address (PUBLIC_URL: the redirect URI
// is the same whichever instance the provider's answer comes back to).
const PUBLIC = 'https://sso.clinic.test';
let idp: TestIdp;
let a: TestServer;
let b: TestServer;

describe.skipIf(testBackend() === 'json')('single sign-on on two instances', () => {
  beforeAll(async () => {
    idp = await startOidcIdp();
    const dataDir = await tempDir();
    const options = { dataDir, config: { SSO_ENCRYPTION_KEY: ENCRYPTION_KEY }, auth: { publicOrigins: [PUBLIC] } };
    a = await startTestServer(options);
    b = await startTestServer({ ...options, declarations: false });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await idp?.close();
  });

  it('starts on A, comes back to B signed in; the same answer replayed on A is refused', async () => {
    const domain = practiceDomain();
    const owner = await seedAccount(a.runtime, { withKey: false, email: `owner@${domain}` });
    await verifyAddress(a.runtime, owner.accountId);
    const ownerClient = new SessionClient(a.url);
    expect((await ownerClient.login(owner.email, owner.password, { origin: PUBLIC })).status).toBe(200);
    const connection = oidcConnection(idp);
    if (connection.provider !== 'oidc') throw new Error('an OIDC connection');
    await idp.register({
      clientId: connection.client_id,
      clientSecret: connection.client_secret!,
      redirectUri: `${PUBLIC}${CALLBACK}`,
    });
    const saved = await ownerClient.request('PUT', '/api/v1/organisation/sso', {
      origin: PUBLIC,
      body: { connection, domains: [domain] },
    });
    expect(saved.status, await saved.clone().text()).toBe(200);

    const email = `gp@${domain}`;
    const onA = new SessionClient(a.url);
    const callback = await signInAtIdp(await startAt(onA, email), personAt(idp, { email }));
    expect(new URL(callback).origin).toBe(PUBLIC);

    // The same browser (its cookies), its answer coming back to B.
    const onB = new SessionClient(b.url, onA.jar);
    const answer = await callbackOn(onB, callback);
    expect(answer.headers.get('location')).toBe('/console/');
    expect(await signedInAs(onB)).toBe(email);

    const replayed = new SessionClient(a.url);
    expect((await callbackOn(replayed, callback)).headers.get('location')).toBe(refusedTo('sso_failed'));
    expect(await signedInAs(replayed)).toBeNull();
  });
});
