import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  apiKeyChecksum,
  BASE62,
  API_KEY_PATTERN as KEY_PATTERN,
  API_KEY_PREFIX as PREFIX,
  API_KEY_RANDOM_LENGTH as RANDOM_LENGTH,
} from '../../shared/domain/api-key-format';

/** Uniform base62 from a CSPRNG: bytes ≥ 248 are dropped rather than folded, so no character is favoured. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** `sk_live_` + 32 random base62 characters + a 6-character base62 CRC-32 of them. */
export function generateApiKey(): string {
  const random = randomBase62(RANDOM_LENGTH);
  return PREFIX + random + apiKeyChecksum(random);
}

/** Whether `key` has the shape and checksum of a key we issue. Says nothing about whether it exists. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const random = key.slice(PREFIX.length, PREFIX.length + RANDOM_LENGTH);
  const checksum = key.slice(PREFIX.length + RANDOM_LENGTH);
  return apiKeyChecksum(random) === checksum;
}

/** SHA-256, hex. crypto.hash (Node ≥ 20.12, the engines floor) hashes in one native call, without a Hash object. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
