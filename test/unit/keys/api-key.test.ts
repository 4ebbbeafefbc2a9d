import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, isWellFormedApiKey, sameHash } from '../../../server/keys/api-key';
import { KEY_PREFIX_LENGTH, keyPrefix } from '../../../shared/domain/api-key-format';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('API key format (sk_live_ + at least 32 base62 characters from a CSPRNG)', () => {
  it('is sk_live_ followed by at least 32 base62 characters', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('is unique across 10,000 generations', () => {
    const keys = new Set(Array.from({ length: 10_000 }, () => generateApiKey()));
    expect(keys.size).toBe(10_000);
  });

  it('uses every base62 character, none markedly more often than the others', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) {
      for (const c of generateApiKey().slice('sk_live_'.length, 'sk_live_'.length + 32)) {
        counts.set(c, (counts.get(c) ?? 0) + 1);
      }
    }
    expect([...counts.keys()].sort().join('')).toBe([...BASE62].sort().join(''));
    const expected = (2_000 * 32) / 62; // ≈ 1032 per character
    for (const [c, count] of counts) {
      expect(count, c).toBeGreaterThan(expected * 0.8);
      expect(count, c).toBeLessThan(expected * 1.2);
    }
  });
});

describe('API key checksum', () => {
  const key = generateApiKey();

  it('rejects every one-character change', () => {
    for (let i = 'sk_live_'.length; i < key.length; i++) {
      const replacement = BASE62[(BASE62.indexOf(key[i]!) + 1 + Math.floor(Math.random() * 60)) % 62]!;
      const changed = key.slice(0, i) + replacement + key.slice(i + 1);
      expect(changed).not.toBe(key);
      expect(isWellFormedApiKey(changed), `position ${i}`).toBe(false);
    }
  });

  it('rejects two adjacent characters swapped', () => {
    for (let i = 'sk_live_'.length; i < key.length - 1; i++) {
      if (key[i] === key[i + 1]) continue;
      const swapped = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
      expect(isWellFormedApiKey(swapped), `position ${i}`).toBe(false);
    }
  });

  it('rejects truncated and extended keys', () => {
    for (let len = 0; len < key.length; len++) {
      expect(isWellFormedApiKey(key.slice(0, len)), `length ${len}`).toBe(false);
    }
    expect(isWellFormedApiKey(key + 'a')).toBe(false);
  });

  it('rejects a wrong prefix, whitespace, and non-base62 characters', () => {
    expect(isWellFormedApiKey(key.replace('sk_live_', 'sk_test_'))).toBe(false);
    expect(isWellFormedApiKey(key.replace('sk_live_', 'SK_LIVE_'))).toBe(false);
    expect(isWellFormedApiKey(` ${key}`)).toBe(false);
    expect(isWellFormedApiKey(`${key}\n`)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, 10) + '-' + key.slice(11))).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });
});

describe('API key hash and prefix', () => {
  it('hashes with SHA-256 as 64 lowercase hex characters', () => {
    const key = generateApiKey();
    const hash = hashApiKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    // The FIPS 180-2 test vector, so the test does not merely repeat the implementation.
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hash).not.toContain(key.slice('sk_live_'.length));
  });

  it('gives different hashes for different keys', () => {
    expect(hashApiKey(generateApiKey())).not.toBe(hashApiKey(generateApiKey()));
  });

  it('has a 12-character prefix: sk_live_ and 4 characters of the key', () => {
    const key = generateApiKey();
    expect(KEY_PREFIX_LENGTH).toBe(12);
    expect(keyPrefix(key)).toHaveLength(12);
    expect(keyPrefix(key)).toBe(key.slice(0, 12));
    expect(keyPrefix(key).startsWith('sk_live_')).toBe(true);
  });

  it('compares hashes in constant time and only equal ones match', () => {
    const a = hashApiKey(generateApiKey());
    const b = hashApiKey(generateApiKey());
    expect(sameHash(a, a)).toBe(true);
    expect(sameHash(a, b)).toBe(false);
    expect(sameHash(a, a.slice(0, 62))).toBe(false);
    expect(sameHash(a, '')).toBe(false);
  });
});
