import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  API_KEY_CHECKSUM_LENGTH as CHECKSUM_LENGTH,
  API_KEY_PATTERN as KEY_PATTERN,
  API_KEY_PREFIX as PREFIX,
  API_KEY_RANDOM_LENGTH as RANDOM_LENGTH,
} from '../../shared/domain/api-key-format';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

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

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

// CRC-32 (IEEE), as GitHub's token checksums use: a typo or truncated key is refused without a store look-up.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** `sk_live_` + 32 random base62 characters + a 6-character base62 CRC-32 of them. */
export function generateApiKey(): string {
  const random = randomBase62(RANDOM_LENGTH);
  return PREFIX + random + base62(crc32(random), CHECKSUM_LENGTH);
}

/** Whether `key` has the shape and checksum of a key we issue. Says nothing about whether it exists. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const random = key.slice(PREFIX.length, PREFIX.length + RANDOM_LENGTH);
  const checksum = key.slice(PREFIX.length + RANDOM_LENGTH);
  return base62(crc32(random), CHECKSUM_LENGTH) === checksum;
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
