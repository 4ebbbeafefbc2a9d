import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../../../server/auth/login-throttle';

const MINUTE = 60_000;

function setup(limits = { perAccount: 3, perIp: 5, windowMs: 15 * MINUTE }) {
  let now = 1_000_000;
  const throttle = new LoginThrottle(limits, () => now);
  const fail = async (email: string, ip: string) => {
    const gate = await throttle.begin(email, ip);
    if (gate.ok) gate.attempt.failed();
    return gate;
  };
  return { throttle, fail, advance: (ms: number) => (now += ms) };
}

describe('LoginThrottle', () => {
  it('allows perAccount failures for an email, then refuses with the seconds until the oldest leaves the window', async () => {
    const { fail, advance } = setup();
    expect((await fail('a@x.test', '1.1.1.1')).ok).toBe(true);
    advance(MINUTE);
    expect((await fail('a@x.test', '1.1.1.2')).ok).toBe(true);
    advance(MINUTE);
    expect((await fail('a@x.test', '1.1.1.3')).ok).toBe(true);
    const blocked = await fail('a@x.test', '1.1.1.4');
    expect(blocked).toEqual({ ok: false, retryAfterSeconds: 13 * 60 });
    advance(13 * MINUTE - 1000);
    expect(await fail('a@x.test', '1.1.1.4')).toEqual({ ok: false, retryAfterSeconds: 1 });
    advance(1000); // the first failure has left the window
    expect((await fail('a@x.test', '1.1.1.4')).ok).toBe(true);
    expect((await fail('a@x.test', '1.1.1.4')).ok).toBe(false);
  });

  it('keeps emails apart, and limits an address across emails', async () => {
    const { fail } = setup();
    for (let i = 0; i < 3; i++) await fail('a@x.test', '9.9.9.9');
    expect((await fail('b@x.test', '8.8.8.8')).ok).toBe(true);
    expect((await fail('b@x.test', '9.9.9.9')).ok).toBe(true);
    expect((await fail('c@x.test', '9.9.9.9')).ok).toBe(true); // the 5th failure from 9.9.9.9
    expect((await fail('d@x.test', '9.9.9.9')).ok).toBe(false);
    expect((await fail('c@x.test', '7.7.7.7')).ok).toBe(true);
  });

  it('a scoped throttle counts in buckets of its own, with the same limits, and leaves the counter open', async () => {
    const { throttle, fail } = setup();
    const resets = throttle.scoped('reset');
    for (let i = 0; i < 3; i++) {
      const gate = await resets.begin('a@x.test', '9.9.9.9');
      if (gate.ok) gate.attempt.failed();
    }
    expect((await resets.begin('a@x.test', '9.9.9.8')).ok).toBe(false);
    // Sign-in for the same email and address is untouched, and vice versa.
    expect((await fail('a@x.test', '9.9.9.9')).ok).toBe(true);
    expect((await resets.begin('b@x.test', '9.9.9.9')).ok).toBe(true);
    await resets.close();
    expect((await fail('a@x.test', '9.9.9.9')).ok).toBe(true);
  });

  it('a refused attempt does not itself count', async () => {
    const { fail, advance } = setup({ perAccount: 1, perIp: 100, windowMs: MINUTE });
    await fail('a@x.test', 'ip');
    for (let i = 0; i < 10; i++) {
      advance(1000);
      expect((await fail('a@x.test', 'ip')).ok).toBe(false);
    }
    advance(MINUTE - 10_000);
    expect((await fail('a@x.test', 'ip')).ok).toBe(true);
  });

  it('counts an attempt from its start, so parallel attempts cannot exceed the limit', async () => {
    const { throttle } = setup();
    const gates = await Promise.all(Array.from({ length: 10 }, () => throttle.begin('a@x.test', 'ip')));
    expect(gates.filter((g) => g.ok)).toHaveLength(3);
  });

  it('success forgets the email’s failures and takes back only its own count for the address', async () => {
    const { throttle, fail } = setup();
    await fail('a@x.test', 'ip');
    await fail('a@x.test', 'ip');
    const gate = await throttle.begin('a@x.test', 'ip');
    if (!gate.ok) throw new Error('expected to pass');
    await gate.attempt.succeeded();
    await gate.attempt.succeeded(); // idempotent
    for (let i = 0; i < 3; i++) expect((await fail('a@x.test', 'ip')).ok).toBe(true); // the email starts over
    // The address keeps the 2 + 3 = 5 real failures: a sixth is refused.
    expect((await fail('z@x.test', 'ip')).ok).toBe(false);
  });

  it('purge drops keys whose failures have all left the window', async () => {
    const { throttle, fail, advance } = setup();
    await fail('a@x.test', 'ip1');
    advance(10 * MINUTE);
    await fail('b@x.test', 'ip2');
    expect(throttle.size).toBe(4);
    advance(6 * MINUTE);
    throttle.purge();
    expect(throttle.size).toBe(2);
  });
});
