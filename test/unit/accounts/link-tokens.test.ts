import { describe, expect, it } from 'vitest';
import { findByTokenIn, newLinkToken } from '../../../server/accounts/link-tokens';

/** `records` behind a proxy that counts how many of them are read by index. */
function counted<R>(records: R[]): { snapshot: R[]; reads: () => number } {
  let reads = 0;
  const snapshot = new Proxy(records, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { snapshot, reads: () => reads };
}

describe('findByTokenIn: a link found by its hash (issue #35)', () => {
  const issued = Array.from({ length: 1000 }, (_, i) => ({ id: `link-${i}`, ...newLinkToken() }));
  const records = issued.map(({ id, hash }) => ({ id, token_hash: hash }));

  it('finds the record of a token, and nothing for a token never issued', () => {
    expect(findByTokenIn(records, issued[737]!.token)?.id).toBe('link-737');
    expect(findByTokenIn(records, newLinkToken().token)).toBeUndefined();
  });

  it('after the first look-up in a snapshot, a look-up reads no record at all (no scan of every pending link)', () => {
    const { snapshot, reads } = counted(records.slice());
    findByTokenIn(snapshot, issued[1]!.token);
    const afterFirst = reads();
    for (const { token } of issued.slice(0, 50)) findByTokenIn(snapshot, token);
    expect(findByTokenIn(snapshot, newLinkToken().token)).toBeUndefined();
    expect(reads() - afterFirst).toBe(0);
  });

  it('a new snapshot (the store replaced it) is indexed afresh', () => {
    const next = [...records.slice(1), { id: 'new', token_hash: newLinkToken().hash }];
    expect(findByTokenIn(next, issued[0]!.token)).toBeUndefined();
    expect(findByTokenIn(records, issued[0]!.token)?.id).toBe('link-0');
  });
});
