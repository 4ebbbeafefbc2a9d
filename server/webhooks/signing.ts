import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + 32 bytes from the CSPRNG, base64url (43 characters). */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** The X-Signature of a delivery: `sha256=` + the hex HMAC-SHA256 of exactly the bytes of its body, keyed by the secret. */
export function signatureOf(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What a receiver does (the README's snippet): recompute the signature over the raw body and compare in constant time. */
export function verifySignature(secret: string, body: string | Buffer, header: string | undefined | null): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signatureOf(secret, body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
