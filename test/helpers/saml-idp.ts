import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

/**
 * A SAML 2.0 identity provider for the tests, built on xml-crypto (the library node-saml verifies signatures with):
 * it reads our AuthnRequest off the redirect URL and answers with a Response whose every part the test chooses —
 * which elements are signed and with which key, the audience, the time window, InResponseTo, an extra assertion — so
 * each refusal is caused by the one thing the test changed.
 */

const run = promisify(execFile);

export interface SamlKeyPair {
  privateKeyPem: string;
  certificatePem: string;
}

/** A fresh RSA key and a self-signed certificate for it (openssl, as an IdP's signing certificate is made). */
export async function samlKeyPair(commonName = 'test-idp'): Promise<SamlKeyPair> {
  const { stdout } = await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    '-',
    '-subj',
    `/CN=${commonName}`,
    '-days',
    '2',
  ]);
  const block = (label: string) => new RegExp(`-----BEGIN ${label}-----[^-]+-----END ${label}-----`).exec(stdout)?.[0];
  const privateKeyPem = block('PRIVATE KEY');
  const certificatePem = block('CERTIFICATE');
  if (!privateKeyPem || !certificatePem) throw new Error(`openssl gave no key pair: ${stdout}`);
  return { privateKeyPem, certificatePem };
}

/** What our AuthnRequest (HTTP-Redirect binding) said. */
export interface ReadAuthnRequest {
  id: string;
  issuer: string;
  acsUrl: string;
  nameIdFormat: string | undefined;
  xml: string;
}

export function readAuthnRequest(redirect: URL | string): ReadAuthnRequest {
  const url = new URL(redirect);
  const encoded = url.searchParams.get('SAMLRequest');
  if (!encoded) throw new Error(`no SAMLRequest in ${url.href}`);
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const attribute = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(xml)?.[1];
  const issuer = /<saml:Issuer[^>]*>([^<]*)<\/saml:Issuer>/.exec(xml)?.[1];
  const id = attribute('ID');
  const acsUrl = attribute('AssertionConsumerServiceURL');
  if (!id || !issuer || !acsUrl) throw new Error(`not an AuthnRequest: ${xml}`);
  return { id, issuer, acsUrl, nameIdFormat: attribute('Format'), xml };
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const newId = () => `_${randomBytes(16).toString('hex')}`;

export const EMAIL_ADDRESS_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const UNSPECIFIED_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';

export interface AssertionOptions {
  issuer: string;
  audience: string;
  /** The NameID; an e-mail address in the emailAddress format unless `nameIdFormat` says otherwise. */
  nameId: string;
  nameIdFormat?: string;
  /** SubjectConfirmationData's InResponseTo (left out when undefined). */
  inResponseTo?: string;
  recipient?: string;
  attributes?: Record<string, string>;
  /** The Conditions' window; by default from a minute ago to five minutes ahead. */
  notBefore?: Date;
  notOnOrAfter?: Date;
  id?: string;
}

const SAML_NS = 'urn:oasis:names:tc:SAML:2.0:assertion';
const SAMLP_NS = 'urn:oasis:names:tc:SAML:2.0:protocol';

export class TestSamlIdp {
  constructor(
    readonly entityId: string,
    readonly keys: SamlKeyPair,
  ) {}

  static async start(entityId = 'https://idp.test.example/saml'): Promise<TestSamlIdp> {
    return new TestSamlIdp(entityId, await samlKeyPair());
  }

  /** An assertion as the XML text an IdP would put in its Response, unsigned. */
  assertion(options: AssertionOptions): { id: string; xml: string } {
    const id = options.id ?? newId();
    const now = Date.now();
    const notBefore = (options.notBefore ?? new Date(now - 60_000)).toISOString();
    const notOnOrAfter = (options.notOnOrAfter ?? new Date(now + 5 * 60_000)).toISOString();
    const format = options.nameIdFormat ?? (options.nameId.includes('@') ? EMAIL_ADDRESS_FORMAT : UNSPECIFIED_FORMAT);
    const confirmation = [
      options.inResponseTo === undefined ? '' : ` InResponseTo="${escapeXml(options.inResponseTo)}"`,
      options.recipient === undefined ? '' : ` Recipient="${escapeXml(options.recipient)}"`,
    ].join('');
    const attributes = Object.entries(options.attributes ?? {})
      .map(
        ([name, value]) =>
          `<saml:Attribute Name="${escapeXml(name)}"><saml:AttributeValue>${escapeXml(value)}</saml:AttributeValue></saml:Attribute>`,
      )
      .join('');
    const xml =
      `<saml:Assertion xmlns:saml="${SAML_NS}" ID="${id}" Version="2.0" IssueInstant="${new Date(now).toISOString()}">` +
      `<saml:Issuer>${escapeXml(options.issuer)}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="${format}">${escapeXml(options.nameId)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
      `<saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}"${confirmation}/>` +
      `</saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}">` +
      `<saml:AudienceRestriction><saml:Audience>${escapeXml(options.audience)}</saml:Audience></saml:AudienceRestriction>` +
      `</saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${new Date(now).toISOString()}" SessionIndex="${newId()}">` +
      `<saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext>` +
      `</saml:AuthnStatement>` +
      (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
      `</saml:Assertion>`;
    return { id, xml };
  }

  /** `xml` with an enveloped RSA-SHA256 signature of its element `id`, placed after that element's Issuer. */
  sign(xml: string, id: string, keys: SamlKeyPair = this.keys): string {
    const signer = new SignedXml({
      privateKey: keys.privateKeyPem,
      publicCert: keys.certificatePem,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    signer.addReference({
      xpath: `//*[@ID='${id}']`,
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    });
    signer.computeSignature(xml, {
      location: { reference: `//*[@ID='${id}']/*[local-name(.)='Issuer']`, action: 'after' },
    });
    return signer.getSignedXml();
  }

  /** A signed assertion (this IdP's key unless another is given). */
  signedAssertion(options: AssertionOptions, keys?: SamlKeyPair): { id: string; xml: string } {
    const { id, xml } = this.assertion(options);
    return { id, xml: this.sign(xml, id, keys) };
  }

  /**
   * The Response carrying `assertions` (XML text, as they are: signed or not), optionally signed itself, base64 as
   * the HTTP-POST binding's SAMLResponse field.
   */
  response(
    assertions: string[],
    options: {
      inResponseTo?: string;
      destination?: string;
      signed?: boolean;
      status?: string;
      extensions?: string;
    } = {},
  ): string {
    const id = newId();
    const attributes = [
      options.inResponseTo === undefined ? '' : ` InResponseTo="${escapeXml(options.inResponseTo)}"`,
      options.destination === undefined ? '' : ` Destination="${escapeXml(options.destination)}"`,
    ].join('');
    const status = options.status ?? 'urn:oasis:names:tc:SAML:2.0:status:Success';
    let xml =
      `<samlp:Response xmlns:samlp="${SAMLP_NS}" xmlns:saml="${SAML_NS}" ID="${id}" Version="2.0" IssueInstant="${new Date().toISOString()}"${attributes}>` +
      `<saml:Issuer>${escapeXml(this.entityId)}</saml:Issuer>` +
      (options.extensions === undefined ? '' : `<samlp:Extensions>${options.extensions}</samlp:Extensions>`) +
      `<samlp:Status><samlp:StatusCode Value="${status}"/></samlp:Status>` +
      assertions.join('') +
      `</samlp:Response>`;
    if (options.signed) xml = this.sign(xml, id);
    return Buffer.from(xml, 'utf8').toString('base64');
  }

  /** What an IdP answers a request with when all goes well: the signed assertion for `email`, in a Response. */
  answer(request: ReadAuthnRequest, email: string, extra: Partial<AssertionOptions> = {}): string {
    const assertion = this.signedAssertion({
      issuer: this.entityId,
      audience: request.issuer,
      nameId: email,
      inResponseTo: request.id,
      recipient: request.acsUrl,
      ...extra,
    });
    return this.response([assertion.xml], { inResponseTo: request.id, destination: request.acsUrl });
  }
}
