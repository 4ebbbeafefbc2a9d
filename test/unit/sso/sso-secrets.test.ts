import { describe, expect, it } from 'vitest';
import { isContractError } from '../../../server/contract-error';
import { requireSecrets, SsoSecrets } from '../../../server/sso/sso-secrets';

const KEY = Buffer.alloc(32, 1).toString('base64');
const OTHER_KEY = Buffer.alloc(32, 2).toString('base64');
const secrets = SsoSecrets.fromKey(KEY)!;

describe('SsoSecrets', () => {
  it('seals with a version, a fresh 12-byte IV and a 16-byte tag, and opens what it sealed', () => {
    const secret = 'client-secret-ümlaut-🔑';
    const [a, b] = [secrets.seal(secret, 'org-1'), secrets.seal(secret, 'org-1')];
    expect(a).not.toBe(b);
    const [version, iv, tag, ciphertext] = a.split('.');
    expect(version).toBe('v1');
    expect(Buffer.from(iv!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(ciphertext!, 'base64url').toString('utf8')).not.toContain('client-secret');
    expect(a).not.toContain(Buffer.from(secret).toString('base64url'));
    expect(secrets.open(a, 'org-1')).toBe(secret);
    expect(secrets.open(b, 'org-1')).toBe(secret);
  });

  it('refuses to open under another key, for another organisation, or altered — never saying the secret', () => {
    const sealed = secrets.seal('hunter2', 'org-1');
    const [version, iv, tag, ciphertext] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(ciphertext, 'base64url');
    flipped[0]! ^= 1;
    const attempts = [
      () => SsoSecrets.fromKey(OTHER_KEY)!.open(sealed, 'org-1'),
      () => secrets.open(sealed, 'org-2'),
      () => secrets.open([version, iv, tag, flipped.toString('base64url')].join('.'), 'org-1'),
      () => secrets.open(['v2', iv, tag, ciphertext].join('.'), 'org-1'),
      () => secrets.open([version, iv, tag.slice(4), ciphertext].join('.'), 'org-1'),
      () => secrets.open('hunter2', 'org-1'),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow(/stored client secret/);
      expect(() => attempt()).not.toThrow(/hunter2/);
    }
  });

  it('has no secrets without a key: a client secret is then refused with sso_encryption_unavailable', () => {
    expect(SsoSecrets.fromKey(undefined)).toBeNull();
    expect(SsoSecrets.fromKey('')).toBeNull();
    expect(() => SsoSecrets.fromKey(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
    let refused: unknown;
    try {
      requireSecrets(null);
    } catch (err) {
      refused = err;
    }
    expect(isContractError(refused, 'sso_encryption_unavailable')).toBe(true);
    expect(requireSecrets(secrets)).toBe(secrets);
  });
});
