/**
 * The shape of an API key the server issues: `sk_live_`, 32 random base62 characters, then a 6-character base62
 * checksum of them. Dependency-free, so the extension's options page can refuse a mistyped key before saving it with
 * the same rule the server checks keys with (the server also verifies the checksum).
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
