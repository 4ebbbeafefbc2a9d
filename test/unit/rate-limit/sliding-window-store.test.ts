import type { Options } from 'express-rate-limit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemorySlidingWindow } from '../../../server/rate-limit/sliding-window';
import { parseStoreKey, SlidingWindowStore, storeKey } from '../../../server/rate-limit/sliding-window-store';

const WINDOW = 60_000;
const T0 = Date.UTC(2026, 0, 1);

function fakeClock(start = T0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('store keys', () => {
  it('carry the limit in front of the bucket, IPv6 buckets with slashes included', () => {
    expect(parseStoreKey(storeKey('key:abc', 250))).toEqual({ bucket: 'key:abc', limit: 250 });
    expect(parseStoreKey(storeKey('ip:2001:db8::/56', 100))).toEqual({ bucket: 'ip:2001:db8::/56', limit: 100 });
  });

  it('refuse a key without a positive limit', () => {
    expect(() => parseStoreKey('key:abc')).toThrow();
    expect(() => parseStoreKey('0/key:abc')).toThrow();
    expect(() => parseStoreKey('x/key:abc')).toThrow();
  });
});

describe('SlidingWindowStore', () => {
  afterEach(() => vi.useRealTimers());

  it('reports accepted requests by count and a refused one as one past the limit, with the reset time', async () => {
    const clock = fakeClock();
    const store = new SlidingWindowStore(new InMemorySlidingWindow(WINDOW), clock.now);
    const key = storeKey('key:a', 2);
    expect(await store.increment(key)).toEqual({ totalHits: 1, resetTime: new Date(T0 + WINDOW) });
    clock.advance(1000);
    expect(await store.increment(key)).toEqual({ totalHits: 2, resetTime: new Date(T0 + WINDOW) });
    expect(await store.increment(key)).toEqual({ totalHits: 3, resetTime: new Date(T0 + WINDOW) });
    // Still 3, not 4: the refused request was not recorded.
    expect(await store.increment(key)).toMatchObject({ totalHits: 3 });
  });

  it('accepts exactly the limit of concurrent increments when the counter answers asynchronously, like a shared store', async () => {
    const counter = new InMemorySlidingWindow(WINDOW);
    // Each call takes a different while to answer, as over a network, so the increments overlap every which way.
    let delay = 0;
    const slow = {
      consume: async (key: string, limit: number, now: number) => {
        await new Promise((resolve) => setTimeout(resolve, (delay = (delay + 7) % 5)));
        return counter.consume(key, limit, now);
      },
      undo: (key: string) => counter.undo(key),
      reset: (key: string) => counter.reset(key),
      purge: (now: number) => counter.purge(now),
    };
    const store = new SlidingWindowStore(slow, fakeClock().now);
    const results = await Promise.all(Array.from({ length: 150 }, () => store.increment(storeKey('key:a', 100))));
    expect(results.filter((r) => r.totalHits <= 100)).toHaveLength(100);
    expect(results.filter((r) => r.totalHits > 100)).toHaveLength(50);
  });

  it('reports a refusal past the limit when the limit was lowered below what is counted', async () => {
    const clock = fakeClock();
    const store = new SlidingWindowStore(new InMemorySlidingWindow(WINDOW), clock.now);
    for (let i = 0; i < 5; i++) await store.increment(storeKey('key:a', 100));
    const refused = await store.increment(storeKey('key:a', 2));
    expect(refused.totalHits).toBeGreaterThan(2);
  });

  it('counts one window per bucket, whatever limit the key carries', async () => {
    const store = new SlidingWindowStore(new InMemorySlidingWindow(WINDOW), fakeClock().now);
    await store.increment(storeKey('key:a', 100));
    await store.increment(storeKey('key:a', 100));
    expect(await store.increment(storeKey('key:a', 5))).toMatchObject({ totalHits: 3 });
  });

  it('decrement gives back the newest request and resetKey forgets the bucket', async () => {
    const store = new SlidingWindowStore(new InMemorySlidingWindow(WINDOW), fakeClock().now);
    const key = storeKey('key:a', 2);
    await store.increment(key);
    await store.increment(key);
    await store.decrement(key);
    expect(await store.increment(key)).toMatchObject({ totalHits: 2 });
    await store.resetKey(key);
    expect(await store.increment(key)).toMatchObject({ totalHits: 1 });
    // A bare bucket, as a caller of the middleware's resetKey would pass it.
    await store.resetKey('key:a');
    expect(await store.increment(key)).toMatchObject({ totalHits: 1 });
  });

  it('purges idle buckets on a timer once per window by default, with its own clock, until shut down', async () => {
    vi.useFakeTimers();
    const clock = fakeClock();
    const counter = new InMemorySlidingWindow(WINDOW);
    const store = new SlidingWindowStore(counter, clock.now);
    store.init({ windowMs: WINDOW } as Options);
    for (let i = 0; i < 10; i++) await store.increment(storeKey(`ip:10.0.0.${i}`, 100));
    clock.advance(WINDOW);
    await vi.advanceTimersByTimeAsync(WINDOW - 1);
    expect(counter.size).toBe(10);
    await vi.advanceTimersByTimeAsync(1);
    expect(counter.size).toBe(0);

    await store.increment(storeKey('ip:10.0.0.1', 100));
    store.shutdown();
    clock.advance(10 * WINDOW);
    await vi.advanceTimersByTimeAsync(10 * WINDOW);
    expect(counter.size).toBe(1);
  });

  it('keeps purging when a shared counter fails a purge', async () => {
    vi.useFakeTimers();
    const purge = vi.fn().mockRejectedValueOnce(new Error('store unreachable')).mockResolvedValue(undefined);
    const store = new SlidingWindowStore(
      { consume: vi.fn(), undo: vi.fn(), reset: vi.fn(), purge },
      fakeClock().now,
      1000,
    );
    store.init({ windowMs: WINDOW } as Options);
    await vi.advanceTimersByTimeAsync(2000);
    expect(purge).toHaveBeenCalledTimes(2);
    store.shutdown();
  });
});
