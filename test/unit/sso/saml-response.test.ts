import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SamlProtocol } from '../../../server/sso/saml-protocol';
import { SamlResponseCheck } from '../../../server/sso/saml-response';
import { samlServiceProvider } from '../../../server/sso/sso-urls';
import type { SsoConnection } from '../../../server/sso/sso-directory';
import { InMemorySsoFlowStore } from '../../../server/sso/in-memory-sso-flow-store';
import {
  readAuthnRequest,
  samlKeyPair,
  TestSamlIdp,
  type AssertionOptions,
  type SamlKeyPair,
} from '../../helpers/saml-idp';

const ORIGIN = 'https://dte.test.example';
const ORG = 'org_saml';

describe('SAML: an AuthnRequest we issued, and the response to it', () => {
  let idp: TestSamlIdp;
  let stranger: SamlKeyPair;
  let flows: InMemorySsoFlowStore;
  let connection: SsoConnection;
  let protocol: SamlProtocol;
  let check: SamlResponseCheck;
  const sp = samlServiceProvider(ORIGIN, ORG);

  beforeAll(async () => {
    [idp, stranger] = await Promise.all([TestSamlIdp.start(), samlKeyPair('someone-else')]);
    flows = new InMemorySsoFlowStore();
    connection = {
      organisationId: ORG,
      provider: 'saml',
      saml: {
        idpEntityId: idp.entityId,
        ssoUrl: 'https://idp.test.example/sso',
        certificatePem: idp.keys.certificatePem,
      },
      domains: ['clinic.com.au'],
      defaultRole: 'member',
      requireSso: false,
    };
    protocol = new SamlProtocol(flows);
    check = new SamlResponseCheck(flows, { forOrganisation: async (id) => (id === ORG ? connection : undefined) });
  });

  afterAll(() => flows.close());

  /** This IdP's signed assertion for our audience, `a@clinic.com.au` unless said. */
  const signedFor = (extra: Partial<AssertionOptions> = {}) =>
    idp.signedAssertion({ issuer: idp.entityId, audience: sp.entity_id, nameId: 'a@clinic.com.au', ...extra });

  const begin = async () => readAuthnRequest(await protocol.begin(connection, '/console/team', ORIGIN, 'binding-hash'));

  it('begin: an AuthnRequest by redirect to the IdP from our entity ID, asking for an e-mail NameID, its ID kept', async () => {
    const url = await protocol.begin(connection, '/console/team', ORIGIN, 'binding-hash');
    expect(url.origin + url.pathname).toBe('https://idp.test.example/sso');
    const request = readAuthnRequest(url);
    expect(request).toMatchObject({
      issuer: sp.entity_id,
      acsUrl: sp.acs_url,
      nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    });
    expect(await flows.take(request.id)).toEqual({
      kind: 'saml',
      organisationId: ORG,
      requestId: request.id,
      returnTo: '/console/team',
      binding: 'binding-hash',
    });
  });

  it('a signed assertion for our audience, in its window, answering our request: accepted', async () => {
    const request = await begin();
    const outcome = await check.check(idp.answer(request, 'Dr.Who@Clinic.com.au'), ORIGIN);
    expect(outcome).toMatchObject({ ok: true, email: 'dr.who@clinic.com.au' });
    expect(outcome.ok && outcome.flow.returnTo).toBe('/console/team');
  });

  it('the address from a mail attribute when the NameID is not an e-mail; one outside the claimed domains refused', async () => {
    const request = await begin();
    const response = idp.answer(request, 'opaque-id-42', { attributes: { mail: 'GP@clinic.com.au' } });
    expect(await check.check(response, ORIGIN)).toMatchObject({ ok: true, email: 'gp@clinic.com.au' });
    const elsewhere = await begin();
    const outside = idp.answer(elsewhere, 'opaque-id-43', { attributes: { mail: 'gp@elsewhere.com.au' } });
    expect(await check.check(outside, ORIGIN)).toMatchObject({
      ok: false,
      code: 'sso_email_not_in_domains',
      organisationId: ORG,
      email: 'gp@elsewhere.com.au',
    });
  });

  it('no e-mail address in the assertion: misconfigured (the IdP must send one)', async () => {
    const request = await begin();
    expect(await check.check(idp.answer(request, 'opaque-id-42'), ORIGIN)).toMatchObject({
      ok: false,
      code: 'sso_misconfigured',
      organisationId: ORG,
    });
  });

  /** Refused for the reason the test caused (`why`: what node-saml or the check said), not for another. */
  const refusedWith = async (response: string, why: RegExp, code = 'sso_failed') =>
    expect(await check.check(response, ORIGIN)).toMatchObject({ ok: false, code, why: expect.stringMatching(why) });

  it('an unsigned assertion, even in a signed response: refused', async () => {
    const request = await begin();
    const assertion = idp.assertion({ issuer: idp.entityId, audience: sp.entity_id, nameId: 'a@clinic.com.au' });
    await refusedWith(idp.response([assertion.xml], { inResponseTo: request.id, signed: true }), /^Invalid signature$/);
    const again = await begin();
    await refusedWith(idp.response([assertion.xml], { inResponseTo: again.id }), /^Invalid signature$/);
  });

  it('an assertion signed with another key than the organisation’s certificate: refused', async () => {
    const request = await begin();
    const assertion = idp.signedAssertion(
      { issuer: idp.entityId, audience: sp.entity_id, nameId: 'a@clinic.com.au', inResponseTo: request.id },
      stranger,
    );
    await refusedWith(idp.response([assertion.xml], { inResponseTo: request.id }), /^Invalid signature$/);
  });

  it('another audience (another organisation’s entity ID): refused', async () => {
    const request = await begin();
    const other = samlServiceProvider(ORIGIN, 'org_other').entity_id;
    await refusedWith(idp.answer(request, 'a@clinic.com.au', { audience: other }), /audience mismatch/);
  });

  it('another issuer than the IdP entity ID set up: refused', async () => {
    const request = await begin();
    await refusedWith(idp.answer(request, 'a@clinic.com.au', { issuer: 'https://idp.other.example' }), /issued by/);
  });

  it('expired beyond the clock skew: refused; expired within it: accepted', async () => {
    const old = new Date(Date.now() - 10 * 60_000);
    const request = await begin();
    const expired = new Date(Date.now() - 61_000);
    await refusedWith(
      idp.answer(request, 'a@clinic.com.au', { notBefore: old, notOnOrAfter: expired }),
      /No valid subject confirmation/,
    );
    const within = await begin();
    const recent = new Date(Date.now() - 30_000);
    const response = idp.answer(within, 'a@clinic.com.au', { notBefore: old, notOnOrAfter: recent });
    expect(await check.check(response, ORIGIN)).toMatchObject({ ok: true });
  });

  it('not yet valid beyond the clock skew: refused', async () => {
    const request = await begin();
    const notBefore = new Date(Date.now() + 2 * 60_000);
    await refusedWith(idp.answer(request, 'a@clinic.com.au', { notBefore }), /not yet valid/);
  });

  it('answering a request we never issued, or none (IdP-initiated): refused', async () => {
    const request = await begin();
    await refusedWith(idp.answer({ ...request, id: '_never-issued' }, 'a@clinic.com.au'), /names no flow/);
    const assertion = signedFor();
    await refusedWith(idp.response([assertion.xml]), /no InResponseTo/);
  });

  it('a signed assertion that answered another request, in a response to ours: refused', async () => {
    const earlier = await begin();
    const assertion = signedFor({ inResponseTo: earlier.id });
    const ours = await begin();
    await refusedWith(idp.response([assertion.xml], { inResponseTo: ours.id }), /does not match subjectInResponseTo/);
  });

  it('the same response twice: the second refused (its request was taken)', async () => {
    const request = await begin();
    const response = idp.answer(request, 'a@clinic.com.au');
    expect(await check.check(response, ORIGIN)).toMatchObject({ ok: true });
    await refusedWith(response, /names no flow/);
  });

  it('the same signed assertion in a response to a new request: refused (each assertion ID once)', async () => {
    const first = await begin();
    const assertion = signedFor();
    expect(await check.check(idp.response([assertion.xml], { inResponseTo: first.id }), ORIGIN)).toMatchObject({
      ok: true,
    });
    const second = await begin();
    await refusedWith(idp.response([assertion.xml], { inResponseTo: second.id }), /replayed/);
  });

  it('signature wrapping: a second, unsigned assertion beside the signed one, or the signed one hidden: refused', async () => {
    const evil = idp.assertion({ issuer: idp.entityId, audience: sp.entity_id, nameId: 'owner@clinic.com.au' });
    const request = await begin();
    const signed = signedFor({ inResponseTo: request.id });
    await refusedWith(idp.response([evil.xml, signed.xml], { inResponseTo: request.id }), /multiple assertions/);
    const again = await begin();
    await refusedWith(idp.response([signed.xml, evil.xml], { inResponseTo: again.id }), /multiple assertions/);
    const hidden = await begin();
    await refusedWith(
      idp.response([evil.xml], { inResponseTo: hidden.id, extensions: signed.xml }),
      /^Invalid signature$/,
    );
  });

  it('the IdP’s own refusal (a status other than Success): cancelled', async () => {
    const request = await begin();
    const response = idp.response([], {
      inResponseTo: request.id,
      status: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
    });
    await refusedWith(response, /Responder error/, 'sso_cancelled');
  });

  it('not XML, or not base64 of anything: refused without a throw', async () => {
    await refusedWith(Buffer.from('<samlp:Response', 'utf8').toString('base64'), /no InResponseTo/);
    await refusedWith('AAAA', /no InResponseTo/);
  });
});
