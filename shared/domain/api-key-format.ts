/**
 * The shape of an API key the server issues: `sk_live_`, 32 random base62 characters, then a 6-character base62
 * checksum of them. Dependency-free, so the extension's options page refuses a cut-short or mistyped key before saving
 * it with the very rule and checksum the server checks keys with.
 */
export const API_KEY_PREFIX = 'sk_live_';
export const API_KEY_RANDOM_LENGTH = 32; // 32 × log2(62) ≈ 190 bits
export const API_KEY_CHECKSUM_LENGTH = 6;
export const API_KEY_PATTERN = new RegExp(
  `^${API_KEY_PREFIX}[0-9A-Za-z]{${API_KEY_RANDOM_LENGTH + API_KEY_CHECKSUM_LENGTH}}$`,
);

/** `sk_live_` and the first 4 random characters: enough for a person to tell keys apart, useless to an attacker. */
export const KEY_PREFIX_LENGTH = API_KEY_PREFIX.length + 4;

/** The part of a key that may be shown and stored: its first KEY_PREFIX_LENGTH characters. */
export function keyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

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

/** The checksum that follows a key's random part: a 6-character base62 CRC-32 of it. */
export function apiKeyChecksum(random: string): string {
  return base62(crc32(random), API_KEY_CHECKSUM_LENGTH);
}
