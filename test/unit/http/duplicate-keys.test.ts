import { describe, expect, it } from 'vitest';
import { hasDuplicateKey } from '../../../server/http/duplicate-keys';

const scan = (text: string) => hasDuplicateKey(Buffer.from(text, 'utf8'));

describe('hasDuplicateKey', () => {
  it.each([
    ['{"postcode":"abcd","postcode":"4000"}'],
    ['{"a":1,"b":2,"a":3}'],
    ['{ "a" : 1 ,\n\t"a"\r\n: 2 }'],
    ['{"x":{"a":1,"a":2}}'],
    ['[1,{"y":[{"a":"}","a":null}]}]'],
    ['{"\\u0070ostcode":"4000","postcode":"abcd"}'],
    ['{"a\\"b":1,"a\\u0022b":2}'],
    ['{"é":1,"\\u00e9":2}'],
    ['{"😀":1,"\\ud83d\\ude00":2}'],
    ['{"":1,"":2}'],
    ['{"a":{"b":1},"c":[{"d":1}],"a":2}'],
    [`{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"k7":0}`],
    [`{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"\\u006b39":0}`],
  ])('%s has one', (text) => {
    expect(scan(text)).toBe(true);
  });

  it.each([
    ['{"postcode":"4000"}'],
    ['{"postcode":"4000","date":"2025-03-10","suburb":"Brisbane City"}'],
    ['{"a":"a","b":"a"}'],
    ['{"a":{"a":{"a":1}}}'],
    ['[{"a":1},{"a":2}]'],
    ['{"x":{"a":1},"y":{"a":1},"a":1}'],
    ['{"a":"\\"a\\":1","b":"{\\"a\\":2}"}'],
    ['{"a\\"":1,"a\\\\":2,"a":3}'],
    ['{"A":1,"a":2}'],
    ['{"\\ud800":1,"\\udfff":2}'],
    ['"a"'],
    ['["a","a"]'],
    ['null'],
    [''],
    [`{${Array.from({ length: 400 }, (_, i) => `"k${i}":{"k${i}":[${i}]}`).join(',')}}`],
  ])('%s has none', (text) => {
    expect(scan(text)).toBe(false);
  });

  it('ends on text that is not JSON, whatever it is', () => {
    for (const text of ['{"a', '{"a":', '{"a":1,"a', '}}}]]]', '{"\\', '"', '{"a":"\\u12"', '{{{{', '[[[[{"a":1,"a']) {
      expect(typeof scan(text)).toBe('boolean');
    }
  });

  /** A tiny deterministic PRNG, so a failure can be reproduced. */
  function random(seed: number) {
    let state = seed;
    return (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return (state >>> 12) % n; // the low bits of this generator repeat with a short period
    };
  }

  /** Keys that look alike, written plainly or with \u escapes, so only their decoded values tell them apart. */
  const KEYS = ['a', 'b', 'ab', 'postcode', 'é', '😀', '"', '\\', '{', '}', ':', ',', '[', ' ', ''];
  function writeKey(key: string, rnd: (n: number) => number): string {
    if (rnd(3) !== 0) return JSON.stringify(key);
    const units = Array.from({ length: key.length }, (_, i) => `\\u${key.charCodeAt(i).toString(16).padStart(4, '0')}`);
    return `"${units.join('')}"`;
  }
  const space = (rnd: (n: number) => number) => [' ', '', '\n', '\t '][rnd(4)]!;

  /** A random JSON text and whether some object in it repeats a key (known by construction). */
  function document(rnd: (n: number) => number, depth: number): { text: string; duplicate: boolean } {
    const kind = depth === 0 ? 3 : depth > 3 ? rnd(2) : rnd(4);
    if (kind === 0) {
      return { text: [JSON.stringify(KEYS[rnd(KEYS.length)]), '1', 'null', '"x\\"y"'][rnd(4)]!, duplicate: false };
    }
    if (kind === 1) return { text: String(rnd(100)), duplicate: false };
    // Now and then an object large enough for the scan to keep its keys in a Set.
    const size = depth <= 1 && rnd(4) === 0 ? 17 + rnd(20) : rnd(5);
    const children = Array.from({ length: size }, () => document(rnd, depth + 1));
    const duplicate = children.some((c) => c.duplicate);
    if (kind === 2) return { text: `[${children.map((c) => space(rnd) + c.text).join(',')}]`, duplicate };
    const keys = children.map(() => (rnd(2) ? KEYS[rnd(KEYS.length)]! : `k${rnd(200)}`));
    const entries = children.map(
      (c, i) => `${space(rnd)}${writeKey(keys[i]!, rnd)}${space(rnd)}:${space(rnd)}${c.text}`,
    );
    return { text: `{${entries.join(',')}}`, duplicate: duplicate || new Set(keys).size < keys.length };
  }

  it('agrees with the construction on 5,000 random documents', () => {
    const rnd = random(13);
    let withDuplicates = 0;
    for (let n = 0; n < 5_000; n++) {
      const doc = document(rnd, 0);
      expect(() => JSON.parse(doc.text), doc.text).not.toThrow();
      expect(scan(doc.text), doc.text).toBe(doc.duplicate);
      if (doc.duplicate) withDuplicates++;
    }
    // Both answers were exercised often.
    expect(withDuplicates).toBeGreaterThan(500);
    expect(withDuplicates).toBeLessThan(4_500);
  });
});
