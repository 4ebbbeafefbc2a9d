import { describe, expect, it } from 'vitest';
import type { SlidingWindowCounter } from '../../server/rate-limit/sliding-window';

export const WINDOW = 60_000;
export const T0 = Date.UTC(2026, 0, 1);

/** Calls `consume` n times, one after the other, at `now` and returns how many were accepted. */
async function consumeMany(counter: SlidingWindowCounter, key: string, limit: number, now: number, n: number) {
  let accepted = 0;
  for (let i = 0; i < n; i++) if ((await counter.consume(key, limit, now)).allowed) accepted++;
  return accepted;
}

/**
 * What every SlidingWindowCounter must do (sliding-window.ts), on the caller's clock: registered inside the
 * caller's describe block for each implementation. `make` gives a fresh, empty counter with a window of WINDOW.
 */
export function slidingWindowContract(make: () => SlidingWindowCounter | Promise<SlidingWindowCounter>): void {
  it('accepts up to the limit and refuses the next, reporting the count', async () => {
    const counter = await make();
    for (let i = 1; i <= 3; i++) {
      expect(await counter.consume('k', 3, T0)).toEqual({ allowed: true, count: i, resetAt: T0 + WINDOW });
    }
    expect(await counter.consume('k', 3, T0)).toEqual({ allowed: false, count: 3, resetAt: T0 + WINDOW });
  });

  it('does not record a refused request: many refusals later, the window frees on the accepted ones alone', async () => {
    const counter = await make();
    expect(await consumeMany(counter, 'k', 2, T0, 2)).toBe(2);
    // 1000 refusals spread over the window: were any recorded, the key would still be blocked at T0 + WINDOW.
    for (let i = 0; i < 1000; i++) expect((await counter.consume('k', 2, T0 + 1 + i * 50)).allowed).toBe(false);
    expect(await consumeMany(counter, 'k', 2, T0 + WINDOW, 3)).toBe(2);
  });

  describe('boundary: a request counts for [t, t + window)', () => {
    it('still counts 1 ms before the window has passed', async () => {
      const counter = await make();
      await counter.consume('k', 1, T0);
      expect(await counter.consume('k', 1, T0 + WINDOW - 1)).toMatchObject({ allowed: false, resetAt: T0 + WINDOW });
    });

    it('no longer counts exactly one window later, which is the resetAt it reported', async () => {
      const counter = await make();
      const { resetAt } = await counter.consume('k', 1, T0);
      expect(resetAt).toBe(T0 + WINDOW);
      expect(await counter.consume('k', 1, resetAt)).toEqual({ allowed: true, count: 1, resetAt: resetAt + WINDOW });
    });
  });

  it('slides: entries leave oldest first, one at a time, and resetAt follows the oldest one still counted', async () => {
    const counter = await make();
    const times = [T0, T0 + 10_000, T0 + 20_000];
    for (const t of times) await counter.consume('k', 3, t);
    expect(await counter.consume('k', 3, T0 + 30_000)).toEqual({ allowed: false, count: 3, resetAt: T0 + WINDOW });
    // T0 has left; T0+10s and T0+20s remain, so there is room for exactly one.
    expect(await counter.consume('k', 3, T0 + WINDOW)).toEqual({
      allowed: true,
      count: 3,
      resetAt: T0 + 10_000 + WINDOW,
    });
    expect(await counter.consume('k', 3, T0 + WINDOW + 1)).toEqual({
      allowed: false,
      count: 3,
      resetAt: T0 + 10_000 + WINDOW,
    });
    expect(await counter.consume('k', 3, T0 + 10_000 + WINDOW)).toEqual({
      allowed: true,
      count: 3,
      resetAt: T0 + 20_000 + WINDOW,
    });
  });

  it('never accepts more than the limit in any window-long interval (seeded random traffic)', async () => {
    const counter = await make();
    const limit = 7;
    let seed = 42;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    };
    const accepted: number[] = [];
    let now = T0;
    for (let i = 0; i < 5000; i++) {
      now += Math.floor(random() * 3000);
      const state = await counter.consume('k', limit, now);
      if (state.allowed) accepted.push(now);
      else expect(state.resetAt).toBeGreaterThan(now);
    }
    // Every interval [a, a + WINDOW) is covered by the one starting at an accepted time.
    let j = 0;
    for (let i = 0; i < accepted.length; i++) {
      while (accepted[j]! < accepted[i]! - WINDOW + 1) j++;
      expect(i - j + 1).toBeLessThanOrEqual(limit);
    }
    // ... and the limit is actually reached, so the check above can fail.
    expect(accepted.length).toBeGreaterThan(limit * ((now - T0) / WINDOW) * 0.5);
  });

  it('lets a refused caller through at exactly the resetAt it was given, and not 1 ms earlier', async () => {
    const counter = await make();
    await counter.consume('k', 2, T0);
    await counter.consume('k', 2, T0 + 15_000);
    const refused = await counter.consume('k', 2, T0 + 40_000);
    expect(refused).toEqual({ allowed: false, count: 2, resetAt: T0 + WINDOW });
    expect((await counter.consume('k', 2, refused.resetAt - 1)).allowed).toBe(false);
    expect((await counter.consume('k', 2, refused.resetAt)).allowed).toBe(true);
  });

  it('applies a lowered limit to what is already counted, and resetAt is when enough have left', async () => {
    const counter = await make();
    for (let i = 0; i < 5; i++) await counter.consume('k', 100, T0 + i * 1000);
    // Limit now 2 with 5 counted: the 4th oldest (T0+3s) must leave before a request fits.
    const refused = await counter.consume('k', 2, T0 + 10_000);
    expect(refused).toEqual({ allowed: false, count: 5, resetAt: T0 + 3000 + WINDOW });
    expect((await counter.consume('k', 2, refused.resetAt - 1)).allowed).toBe(false);
    expect(await counter.consume('k', 2, refused.resetAt)).toMatchObject({ allowed: true, count: 2 });
  });

  it('applies a raised limit at once', async () => {
    const counter = await make();
    expect(await consumeMany(counter, 'k', 3, T0, 5)).toBe(3);
    expect(await consumeMany(counter, 'k', 5, T0 + 1, 5)).toBe(2);
  });

  it('keeps keys apart', async () => {
    const counter = await make();
    expect(await consumeMany(counter, 'a', 2, T0, 3)).toBe(2);
    expect(await consumeMany(counter, 'b', 2, T0, 3)).toBe(2);
  });

  describe('undo', () => {
    it('forgets the newest accepted request only', async () => {
      const counter = await make();
      await counter.consume('k', 2, T0);
      await counter.consume('k', 2, T0 + 30_000);
      await counter.undo('k');
      // The T0 request still counts (resetAt is its), and there is room for one again.
      expect(await counter.consume('k', 2, T0 + 40_000)).toEqual({ allowed: true, count: 2, resetAt: T0 + WINDOW });
      expect((await counter.consume('k', 2, T0 + 40_000)).allowed).toBe(false);
    });

    it('empties the key when nothing is left, and ignores unknown keys', async () => {
      const counter = await make();
      await counter.consume('k', 2, T0);
      await counter.undo('k');
      await counter.undo('k');
      await counter.undo('nobody');
      expect(await counter.consume('k', 2, T0)).toEqual({ allowed: true, count: 1, resetAt: T0 + WINDOW });
    });
  });

  it('reset forgets a key', async () => {
    const counter = await make();
    await consumeMany(counter, 'k', 2, T0, 2);
    await counter.reset('k');
    expect(await consumeMany(counter, 'k', 2, T0, 3)).toBe(2);
  });
}
