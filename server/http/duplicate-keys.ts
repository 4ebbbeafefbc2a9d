const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Past this many keys an object's keys go into a Set: comparing each new key with every earlier one is quadratic. */
const SMALL_OBJECT_KEYS = 16;

/**
 * The scan's working memory, reused from call to call (a scan runs synchronously to its end), so that checking a
 * small body allocates nothing. Keys of the objects open so far, innermost last: where each key's text starts and
 * ends, and whether it is plain (ASCII without escapes, so equal bytes mean equal keys).
 */
let keyStart = new Int32Array(64);
let keyEnd = new Int32Array(64);
let keyPlain = new Uint8Array(64);
/** Per open container, innermost last: the index of its first key, or -1 for an array. */
let containerFirstKey = new Int32Array(64);
/** The Set of a container's keys once it has more than SMALL_OBJECT_KEYS. */
const largeObjectKeys: (Set<string> | undefined)[] = [];

function isJsonWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function grown<T extends Int32Array | Uint8Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

/**
 * Whether a UTF-8 JSON text has an object with the same key twice, at any depth. JSON.parse keeps the last value
 * without a word, so `{"postcode":"abcd","postcode":"4000"}` reads as 4000 — and a proxy, a log or a filter that kept
 * the first one would disagree with the server about what was asked.
 *
 * One pass over the bytes, without building the value: structural characters are ASCII and never occur inside a
 * multi-byte UTF-8 sequence, so strings can be skipped byte by byte. Keys compare as the strings JSON.parse makes of
 * them, so `"\u0070ostcode"` is `"postcode"`. On text that is not valid JSON the answer means nothing (JSON.parse
 * refuses it anyway), but the scan still ends: every step moves forward.
 */
export function hasDuplicateKey(text: Buffer): boolean {
  const n = text.length;
  let depth = 0;
  let keys = 0;
  let i = 0;
  while (i < n) {
    const byte = text[i]!;
    if (byte !== QUOTE) {
      if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        if (depth === containerFirstKey.length) containerFirstKey = grown(containerFirstKey);
        containerFirstKey[depth] = byte === OPEN_OBJECT ? keys : -1;
        largeObjectKeys[depth] = undefined;
        depth++;
      } else if ((byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) && depth > 0) {
        depth--;
        // An object's keys are the last ones recorded: closing it forgets them.
        if (containerFirstKey[depth]! >= 0) keys = containerFirstKey[depth]!;
        largeObjectKeys[depth] = undefined;
      }
      i++;
      continue;
    }

    const start = i + 1;
    let plain = 1;
    i++;
    while (i < n) {
      const c = text[i]!;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        plain = 0;
        i++;
      } else if (c >= 0x80) {
        plain = 0;
      }
      i++;
    }
    const end = i;
    i++; // past the closing quote
    const first = depth > 0 ? containerFirstKey[depth - 1]! : -1;
    if (first < 0) continue; // a string at the top level or in an array
    let next = i;
    while (isJsonWhitespace(text[next])) next++;
    if (text[next] !== COLON) continue; // a value, not a key
    i = next + 1;

    const large = largeObjectKeys[depth - 1];
    if (large) {
      const key = decode(text, start, end, plain);
      if (key === undefined) return false; // not JSON: the parse that follows says so
      if (large.has(key)) return true;
      large.add(key);
      continue;
    }
    if (keys === keyStart.length) {
      keyStart = grown(keyStart);
      keyEnd = grown(keyEnd);
      keyPlain = grown(keyPlain);
    }
    keyStart[keys] = start;
    keyEnd[keys] = end;
    keyPlain[keys] = plain;
    for (let k = first; k < keys; k++) if (sameKey(text, k, keys)) return true;
    keys++;
    if (keys - first > SMALL_OBJECT_KEYS) {
      const set = new Set<string>();
      for (let k = first; k < keys; k++) set.add(decode(text, keyStart[k]!, keyEnd[k]!, keyPlain[k]!) ?? '');
      largeObjectKeys[depth - 1] = set;
    }
  }
  return false;
}

/** The key between `start` and `end` (quotes excluded) as JSON.parse reads it; undefined for a malformed one. */
function decode(text: Buffer, start: number, end: number, plain: number): string | undefined {
  if (plain) return text.toString('latin1', start, end);
  try {
    return JSON.parse(text.toString('utf8', start - 1, end + 1)) as string;
  } catch {
    return undefined;
  }
}

function sameKey(text: Buffer, a: number, b: number): boolean {
  const aStart = keyStart[a]!;
  const bStart = keyStart[b]!;
  const length = keyEnd[a]! - aStart;
  if (keyPlain[a] && keyPlain[b]) {
    if (length !== keyEnd[b]! - bStart) return false;
    for (let x = 0; x < length; x++) if (text[aStart + x] !== text[bStart + x]) return false;
    return true;
  }
  const keyA = decode(text, aStart, keyEnd[a]!, keyPlain[a]!);
  return keyA !== undefined && keyA === decode(text, bStart, keyEnd[b]!, keyPlain[b]!);
}
