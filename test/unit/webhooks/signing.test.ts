import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureOf, verifySignature } from '../../../server/webhooks/signing';

describe('webhook signing', () => {
  it('makes whsec_ secrets of 32 random bytes, base64url', () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(6), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('signs exactly the bytes of the body: sha256=<hex HMAC-SHA256>', () => {
    const secret = 'whsec_test';
    const body = '{"event":"alerts","alerts":[]}';
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    expect(signatureOf(secret, body)).toBe(`sha256=${expected}`);
    expect(signatureOf(secret, Buffer.from(body))).toBe(`sha256=${expected}`);
    expect(verifySignature(secret, body, `sha256=${expected}`)).toBe(true);
    // Another secret, another byte, a truncated or missing header: refused.
    expect(verifySignature('whsec_other', body, `sha256=${expected}`)).toBe(false);
    expect(verifySignature(secret, `${body} `, `sha256=${expected}`)).toBe(false);
    expect(verifySignature(secret, body, `sha256=${expected.slice(1)}`)).toBe(false);
    expect(verifySignature(secret, body, undefined)).toBe(false);
  });
});
