import { describe, expect, it } from 'vitest';
import { generateApiKey, isWellFormedApiKey } from '../../../server/keys/api-key';
import { apiKeyChecksum } from '../../../shared/domain/api-key-format';
import { API_KEY_LENGTH, apiKeyProblem, NOT_A_KEY } from '../../../extension/common/api-key-check';

/** One character of `key` at `index` replaced by another base62 character. */
function mistype(key: string, index: number): string {
  const other = key[index] === 'x' ? 'y' : 'x';
  return key.slice(0, index) + other + key.slice(index + 1);
}

describe('apiKeyProblem (the options page refuses a pasted key in words that say what is wrong)', () => {
  const key = generateApiKey();

  it('accepts every key the server issues, with the checksum the server computes', () => {
    expect(key).toHaveLength(API_KEY_LENGTH);
    for (let i = 0; i < 500; i++) {
      const issued = generateApiKey();
      expect(apiKeyProblem(issued), issued).toBeNull();
      expect(apiKeyChecksum(issued.slice(8, 40))).toBe(issued.slice(40));
    }
  });

  it('a key cut short: incomplete, with the lengths', () => {
    expect(apiKeyProblem(key.slice(0, 40))).toBe(
      'This API key is incomplete: 46 characters expected, 40 pasted. Copy the whole key again.',
    );
    expect(apiKeyProblem('sk_live_')).toContain('incomplete: 46 characters expected, 8 pasted');
  });

  it('a key with more after it, or pasted twice: too long, with the lengths', () => {
    expect(apiKeyProblem(`${key}abcd`)).toBe(
      'This API key is too long: 46 characters expected, 50 pasted. Copy the key again, once.',
    );
    expect(apiKeyProblem(key + key)).toContain('too long: 46 characters expected, 92 pasted');
  });

  it('one character typed wrong, anywhere after the prefix, or two swapped: a character was mistyped', () => {
    const message = 'This API key does not check out: a character was mistyped. Copy the key instead of typing it.';
    for (let index = 8; index < API_KEY_LENGTH; index++) {
      const wrong = mistype(key, index);
      expect(apiKeyProblem(wrong), wrong).toBe(message);
      // The same rule as the server's: what the options page refuses, the server would refuse too.
      expect(isWellFormedApiKey(wrong)).toBe(false);
    }
    const swapped = key.slice(0, 10) + key[11] + key[10] + key.slice(12);
    if (swapped !== key) expect(apiKeyProblem(swapped)).toBe(message);
  });

  it('the first message stays for what is not a key at all: another prefix, or characters outside base62', () => {
    expect(NOT_A_KEY).toBe('An API key starts with sk_live_ followed by letters and digits.');
    expect(apiKeyProblem(`pk_live_${key.slice(8)}`)).toBe(NOT_A_KEY);
    expect(apiKeyProblem(`SK_LIVE_${key.slice(8)}`)).toBe(NOT_A_KEY);
    expect(apiKeyProblem(key.slice(8))).toBe(NOT_A_KEY);
    expect(apiKeyProblem(`${key.slice(0, 20)}-${key.slice(21)}`)).toBe(NOT_A_KEY);
    expect(apiKeyProblem(`${key.slice(0, 20)} ${key.slice(20)}`)).toBe(NOT_A_KEY);
    expect(apiKeyProblem(`Authorization: ${key}`)).toBe(NOT_A_KEY);
  });
});
