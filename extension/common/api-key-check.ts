import {
  apiKeyChecksum,
  API_KEY_CHECKSUM_LENGTH,
  API_KEY_PREFIX,
  API_KEY_RANDOM_LENGTH,
} from '../../shared/domain/api-key-format';

/** How long a whole key is: `sk_live_`, the random part, the checksum. */
export const API_KEY_LENGTH = API_KEY_PREFIX.length + API_KEY_RANDOM_LENGTH + API_KEY_CHECKSUM_LENGTH;

const BASE62_ONLY = /^[0-9A-Za-z]*$/;

/** Said when what was pasted is not a key at all: another secret, or text around the key. */
export const NOT_A_KEY = `An API key starts with ${API_KEY_PREFIX} followed by letters and digits.`;

/**
 * Why a pasted API key cannot be one the server issued, in words that name what is wrong with it (a key cut short by
 * a copy, one pasted twice, a character typed wrong), or null when it could be one. Whether the server knows the key
 * is for the server to say.
 */
export function apiKeyProblem(key: string): string | null {
  if (!key.startsWith(API_KEY_PREFIX)) return NOT_A_KEY;
  // A key pasted twice holds the prefix twice: that is a key too long, not something else.
  if (!BASE62_ONLY.test(key.slice(API_KEY_PREFIX.length).replaceAll(API_KEY_PREFIX, ''))) return NOT_A_KEY;
  const lengths = `${API_KEY_LENGTH} characters expected, ${key.length} pasted`;
  if (key.length < API_KEY_LENGTH) return `This API key is incomplete: ${lengths}. Copy the whole key again.`;
  if (key.length > API_KEY_LENGTH) return `This API key is too long: ${lengths}. Copy the key again, once.`;
  const random = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + API_KEY_RANDOM_LENGTH);
  if (apiKeyChecksum(random) !== key.slice(API_KEY_PREFIX.length + API_KEY_RANDOM_LENGTH)) {
    return 'This API key does not check out: a character was mistyped. Copy the key instead of typing it.';
  }
  return null;
}
