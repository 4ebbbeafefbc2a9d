import { X509Certificate } from 'node:crypto';
import { ContractError } from '../contract-error';

export interface ParsedCertificate {
  /** The certificate as PEM, one block, lines of 64: what the SAML engineer's node-saml takes. */
  pem: string;
  /** SHA-256 of its DER, upper-case hex pairs with colons (as IdP consoles show it). */
  fingerprint: string;
  /** When it stops being valid, ISO 8601 UTC. */
  expiresAt: string;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/;

/**
 * The IdP's signing certificate as an owner pastes it: a PEM block (an IdP's download), or its bare base64 body (what
 * SAML metadata's <X509Certificate> holds). Parsed by node:crypto; anything else is sso_invalid_certificate.
 */
export function parseCertificate(input: string): ParsedCertificate {
  const block = PEM_BLOCK.exec(input);
  const body = (block ? block[1]! : input).replace(/\s+/g, '');
  if (body === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw new ContractError('sso_invalid_certificate');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(body, 'base64'));
  } catch {
    throw new ContractError('sso_invalid_certificate');
  }
  const expires = new Date(certificate.validTo);
  if (Number.isNaN(expires.getTime())) throw new ContractError('sso_invalid_certificate');
  return { pem: certificate.toString(), fingerprint: certificate.fingerprint256, expiresAt: expires.toISOString() };
}
