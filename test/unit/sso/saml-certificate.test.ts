import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCertificate } from '../../../server/sso/saml-certificate';

const PEM = readFileSync(path.join(import.meta.dirname, '../../fixtures/sso/idp-signing-certificate.pem'), 'utf8');
const BODY = PEM.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

describe('parseCertificate', () => {
  it('reads a PEM block or its bare base64 body (as SAML metadata holds it) alike', () => {
    const fromPem = parseCertificate(PEM);
    expect(fromPem).toEqual({
      pem: PEM,
      // openssl x509 -noout -fingerprint -sha256 -enddate
      fingerprint: 'AF:D5:6E:AA:0F:23:91:78:E0:AA:33:11:91:ED:9F:D7:52:4E:65:1E:7B:34:CD:E3:6F:F6:3C:9D:7B:34:8E:BC',
      expiresAt: '2036-11-26T19:21:06.000Z',
    });
    expect(parseCertificate(BODY)).toEqual(fromPem);
    expect(parseCertificate(`\r\n  ${BODY.replace(/(.{64})/g, '$1\r\n')}  `)).toEqual(fromPem);
  });

  it.each([
    ['empty', '   '],
    ['text', 'not a certificate'],
    ['another PEM block', PEM.replace(/CERTIFICATE/g, 'PUBLIC KEY')],
    ['two blocks', `${PEM}\n${PEM}`],
    ['trailing bytes', `${PEM}\u0000`],
    ['a NUL inside', PEM.replace('\n', '\n\u0000')],
    ['cut short', BODY.slice(0, 300)],
  ])('refuses %s with sso_invalid_certificate', (_what, input) => {
    expect(() => parseCertificate(input)).toThrow(expect.objectContaining({ code: 'sso_invalid_certificate' }));
  });
});
