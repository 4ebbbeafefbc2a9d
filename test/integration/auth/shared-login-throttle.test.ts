import { afterEach, describe, expect, it } from 'vitest';
import type { LoginThrottle, LoginThrottleLimits } from '../../../server/auth/login-throttle';
import { counters } from '../../../server/backends/counters';
import { useRedisServer } from '../../helpers/redis-per-file';
import { waitFor } from '../../helpers/wait-for';

const MINUTE = 60_000;
const LIMITS: LoginThrottleLimits = { perAccount: 5, perIp: 20, windowMs: 15 * MINUTE };

// One real redis-server for the file; each test has its own key prefix, as separate deployments would.
const redis = useRedisServer();
let seq = 0;
const throttles: LoginThrottle[] = [];

afterEach(async () => {
  redis.resume();
  await Promise.all(throttles.splice(0).map((t) => t.close()));
});

/** Two instances' throttles on one Redis, one prefix, one clock (a fake one with 'caller'). */
async function instances(
  options: { limits?: Partial<LoginThrottleLimits>; clock?: 'redis' | 'caller'; now?: () => number } = {},
) {
  const keyPrefix = `t${++seq}:`;
  const open = () =>
    counters({ url: redis.url, keyPrefix, clock: options.clock ?? 'redis' }).loginThrottle(
      { ...LIMITS, ...options.limits },
      options.now ?? Date.now,
    );
  const [a, b] = await Promise.all([open(), open()]);
  throttles.push(a, b);
  return { a, b, keyPrefix };
}

async function fail(throttle: LoginThrottle, email: string, ip: string) {
  const gate = await throttle.begin(email, ip);
  if (gate.ok) gate.attempt.failed();
  return gate;
}

describe('the login throttle in Redis', () => {
  it('shares the per-account limit: 20 parallel guesses split across two instances get exactly 5 through', async () => {
    const { a, b } = await instances();
    const gates = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).begin('victim@x.test', `198.51.100.${i}`)),
    );
    expect(gates.filter((g) => g.ok)).toHaveLength(5);
    const refused = gates.filter((g) => !g.ok);
    expect(refused).toHaveLength(15);
    for (const g of refused) expect(g.retryAfterSeconds).toBeGreaterThan(14 * 60);
  });

  it('shares the per-address limit across emails and instances, all or nothing per attempt', async () => {
    const { a, b } = await instances({ limits: { perIp: 4, perAccount: 1 } });
    const gates = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).begin(`spray${i}@x.test`, '203.0.113.7')),
    );
    expect(gates.filter((g) => g.ok)).toHaveLength(4);
    // The 8 refused attempts were not recorded against their emails (1 allowed each): each may still try once.
    const refusedEmails = gates.map((g, i) => (g.ok ? null : `spray${i}@x.test`)).filter((e) => e !== null);
    for (const email of refusedEmails) {
      expect((await fail(a, email, `192.0.2.${refusedEmails.indexOf(email)}`)).ok).toBe(true);
    }
    // While an email that did get through has used its one.
    const passed = gates.findIndex((g) => g.ok);
    expect((await fail(b, `spray${passed}@x.test`, '198.51.100.99')).ok).toBe(false);
  });

  it('a success on one instance forgets the email’s failures for all, and keeps the address’s real failures', async () => {
    const { a, b } = await instances({ limits: { perIp: 10 } });
    for (let i = 0; i < 4; i++) expect((await fail(a, 'clinic@x.test', 'ip')).ok).toBe(true);
    const gate = await b.begin('clinic@x.test', 'ip');
    if (!gate.ok) throw new Error('expected the 5th attempt to pass');
    await gate.attempt.succeeded();
    await gate.attempt.succeeded(); // idempotent
    for (let i = 0; i < 5; i++) expect((await fail(a, 'clinic@x.test', 'ip')).ok, `failure ${i + 1}`).toBe(true);
    expect((await fail(b, 'clinic@x.test', 'ip')).ok).toBe(false);
    // The address kept 4 + 5 = 9 failures (the success was taken back): one more, then refused.
    expect((await fail(b, 'other@x.test', 'ip')).ok).toBe(true);
    expect((await fail(a, 'third@x.test', 'ip')).ok).toBe(false);
  });

  it('keeps the sliding window on the caller’s clock when told to, with Retry-After to the oldest failure leaving', async () => {
    let now = Date.parse('2026-11-22T00:00:00.000Z');
    const { a, b } = await instances({ clock: 'caller', now: () => now, limits: { perAccount: 3 } });
    expect((await fail(a, 'a@x.test', '1.1.1.1')).ok).toBe(true);
    now += MINUTE;
    expect((await fail(b, 'a@x.test', '1.1.1.2')).ok).toBe(true);
    now += MINUTE;
    expect((await fail(a, 'a@x.test', '1.1.1.3')).ok).toBe(true);
    expect(await fail(b, 'a@x.test', '1.1.1.4')).toEqual({ ok: false, retryAfterSeconds: 13 * 60 });
    now += 13 * MINUTE - 1000;
    expect(await fail(a, 'a@x.test', '1.1.1.4')).toEqual({ ok: false, retryAfterSeconds: 1 });
    now += 1000; // the first failure has left the window
    expect((await fail(b, 'a@x.test', '1.1.1.4')).ok).toBe(true);
    expect((await fail(a, 'a@x.test', '1.1.1.4')).ok).toBe(false);
  });

  it('keeps its buckets under <prefix>login:, named by hashes (no email or address in Redis), expiring', async () => {
    const { a, keyPrefix } = await instances();
    await fail(a, 'private.person@x.test', '203.0.113.55');
    const keys: string[] = [];
    for await (const batch of redis.inspect.scanIterator({ MATCH: `${keyPrefix}*` })) keys.push(...batch);
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key).toMatch(new RegExp(`^${keyPrefix}login:(email|ip):[0-9a-f]{64}$`));
      expect(await redis.inspect.pTTL(key)).toBeGreaterThan(14 * MINUTE);
      expect(JSON.stringify(await redis.inspect.zRange(key, 0, -1))).not.toMatch(/private|203\.0/);
    }
  });

  it('refuses (rate_limit_unavailable) while Redis is out or hangs, never passes uncounted, and recovers', async () => {
    const { a } = await instances();
    expect((await fail(a, 'x@x.test', 'ip')).ok).toBe(true);

    await redis.stop();
    let started = Date.now();
    await expect(a.begin('x@x.test', 'ip')).rejects.toMatchObject({ code: 'rate_limit_unavailable' });
    expect(Date.now() - started).toBeLessThan(1000);
    await redis.start();
    await waitFor(() => a.begin('x@x.test', 'ip').then((g) => g.ok), {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'sign-in attempts to be counted again after Redis restarted',
    });

    redis.pause();
    started = Date.now();
    await expect(a.begin('x@x.test', 'ip')).rejects.toMatchObject({ code: 'rate_limit_unavailable' });
    expect(Date.now() - started).toBeLessThan(1500);
    redis.resume();
    await waitFor(() => a.begin('y@x.test', 'ip').then((g) => g.ok), {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'sign-in attempts to be counted again once Redis answers',
    });
  });

  it('does not open when Redis cannot be reached', async () => {
    const closed = new URL(redis.url);
    closed.port = '1';
    const failure = await counters({ url: closed.toString(), keyPrefix: 'x:', clock: 'redis' })
      .loginThrottle(LIMITS, Date.now)
      .catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: 'rate_limit_unavailable' });
    expect((failure as Error).message).toBe('could not connect to Redis at redis://127.0.0.1:1 for login throttling');
  });

  it('without Redis, counts in this process exactly as before', async () => {
    const throttle = await counters(null).loginThrottle({ ...LIMITS, perAccount: 2 }, () => 1_000_000);
    expect((await fail(throttle, 'a@x.test', 'ip')).ok).toBe(true);
    expect((await fail(throttle, 'a@x.test', 'ip')).ok).toBe(true);
    expect(await fail(throttle, 'a@x.test', 'ip')).toEqual({ ok: false, retryAfterSeconds: 15 * 60 });
    expect(throttle.size).toBe(2);
    await throttle.close();
  });
});
