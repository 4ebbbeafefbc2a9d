import { expect } from 'vitest';
import { readAuthnRequest, type ReadAuthnRequest, type TestSamlIdp } from '../../helpers/saml-idp';
import type { TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { practice as verifiedPractice } from './sso-world';

export const ACS = '/api/v1/auth/sso/saml/acs';
export const FINISH = '/api/v1/auth/sso/saml/finish';
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** The IdP's page posts the form: a browser sends that page's origin. */
export const IDP_ORIGIN = 'https://idp.test.example';

/**
 * A practice whose owner (verified, at its own domain) set SAML up with `idp` as the console does: PUT
 * /api/v1/organisation/sso (from the console's page at `origin`). `serviceProvider`: what the answer tells the owner
 * to register at the IdP.
 */
export async function samlPractice(server: TestServer, idp: TestSamlIdp, origin?: string) {
  const p = await verifiedPractice(server);
  const res = await p.ownerClient.request('PUT', '/api/v1/organisation/sso', {
    body: {
      connection: {
        provider: 'saml',
        idp_entity_id: idp.entityId,
        sso_url: `${IDP_ORIGIN}/sso`,
        certificate: idp.keys.certificatePem,
      },
      domains: [p.domain],
    },
    origin,
  });
  expect(res.status).toBe(200);
  const { settings } = (await json(res)).data;
  return { ...p, serviceProvider: settings.connection.service_provider as Record<string, string> };
}

export type Practice = Awaited<ReturnType<typeof samlPractice>>;

let starts = 0;

/**
 * Sign-in started for `practice` in `browser` through its start route (GET /api/v1/auth/sso/start with an address in
 * the practice's domain, as the sign-in page sends the browser): the AuthnRequest the IdP is sent. `origin` is where
 * the server builds its SP values on (PUBLIC_URL, else where it listens): checked against the redirect.
 */
export async function begin(
  browser: SessionClient,
  practice: Practice,
  { returnTo = '/console/', origin = browser.baseUrl } = {},
): Promise<ReadAuthnRequest> {
  // Each start from its own address: the start route limits starts per address.
  const email = `start${++starts}@${practice.domain}`;
  const query = new URLSearchParams({ email, return_to: returnTo });
  const res = await browser.get(`/api/v1/auth/sso/start?${query}`);
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location')!);
  expect(location.origin + location.pathname).toBe(`${IDP_ORIGIN}/sso`);
  const request = readAuthnRequest(location);
  expect(request.acsUrl).toBe(`${origin}/api/v1/auth/sso/saml/acs`);
  return request;
}

/**
 * The browser posting the IdP's form to the ACS, from the IdP's page: a cross-site post, which carries no SameSite=Lax
 * cookie (the binding, the session), as a browser sends it.
 */
export const postResponse = (client: SessionClient, SAMLResponse: string) => {
  const crossSite = new SessionClient(client.baseUrl);
  return crossSite.post(ACS, {
    body: new URLSearchParams({ SAMLResponse }).toString(),
    headers: FORM,
    origin: IDP_ORIGIN,
  });
};

/** The ACS's answer followed as a browser does: a 303 to the finish is opened (same site: its cookies go). */
export async function answer(client: SessionClient, SAMLResponse: string): Promise<Response> {
  const posted = await postResponse(client, SAMLResponse);
  const location = posted.headers.get('location') ?? '';
  return location.startsWith(`${FINISH}?`) ? client.get(location, { origin: null }) : posted;
}
