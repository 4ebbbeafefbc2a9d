import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../../server/keys/key-records';
import { revokedBeyond } from '../../../server/keys/key-archive';
import { admitKeyAction, KEY_ACTION_LIMIT, type KeyActionTimes } from '../../../server/keys/key-action-limit';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

describe('admitKeyAction (10 key actions per account per hour)', () => {
  it('admits ten in the hour, refuses the eleventh with the seconds until the oldest leaves, admits again then', () => {
    expect(KEY_ACTION_LIMIT).toEqual({ max: 10, windowMs: 3600_000 });
    const times: KeyActionTimes = {};
    for (let i = 0; i < 10; i++) expect(admitKeyAction(times, 'a', at(i * 60_000))).toBeNull();
    expect(times.a).toHaveLength(10);
    const before = structuredClone(times);
    expect(admitKeyAction(times, 'a', at(10 * 60_000))).toBe(50 * 60);
    expect(admitKeyAction(times, 'a', at(3600_000 - 1))).toBe(1);
    expect(times).toEqual(before); // a refusal records nothing
    // An action at t counts during [t, t + 1 h).
    expect(admitKeyAction(times, 'a', at(3600_000))).toBeNull();
    expect(times.a).toHaveLength(10);
    // The oldest counted is now the one at 1 min: 59.999 s away, rounded up.
    expect(admitKeyAction(times, 'a', at(3600_000 + 1))).toBe(60);
  });

  it('counts per account and forgets accounts whose actions have all left the window', () => {
    const times: KeyActionTimes = {};
    for (let i = 0; i < 10; i++) admitKeyAction(times, 'a', at(i));
    expect(admitKeyAction(times, 'b', at(20))).toBeNull();
    expect(admitKeyAction(times, 'a', at(30))).not.toBeNull();
    expect(admitKeyAction(times, 'c', at(2 * 3600_000))).toBeNull();
    expect(Object.keys(times)).toEqual(['c']);
  });

  it('takes a smaller limit, e.g. for a test or a stricter deployment', () => {
    const times: KeyActionTimes = {};
    const limit = { max: 2, windowMs: 1_000 };
    expect(admitKeyAction(times, 'a', at(0), limit)).toBeNull();
    expect(admitKeyAction(times, 'a', at(100), limit)).toBeNull();
    expect(admitKeyAction(times, 'a', at(200), limit)).toBe(1);
    expect(admitKeyAction(times, 'a', at(1_000), limit)).toBeNull();
  });
});

describe('revokedBeyond', () => {
  const key = (account: string, n: number, status: 'active' | 'revoked' = 'revoked') =>
    ({ id: `${account}${n}`, subscription_id: account, status }) as ApiKeyRecord;

  it('picks each subscription’s revoked records beyond its most recent `keep`, in file order, never an active one', () => {
    const keys = [
      key('a', 1),
      key('b', 1),
      key('a', 2),
      key('a', 3),
      key('b', 2),
      key('a', 4, 'active'),
      key('a', 5),
      key('b', 3, 'active'),
    ];
    expect(revokedBeyond(keys, 2).map((k) => k.id)).toEqual(['a1', 'a2']);
    expect(revokedBeyond(keys, 1).map((k) => k.id)).toEqual(['a1', 'b1', 'a2', 'a3']);
    expect(revokedBeyond(keys, 10)).toEqual([]);
    expect(revokedBeyond(keys, 0).map((k) => k.id)).toEqual(['a1', 'b1', 'a2', 'a3', 'b2', 'a5']);
  });
});
