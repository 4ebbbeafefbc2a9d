import { describe, expect, it } from 'vitest';
import { InMemorySlidingWindow } from '../../../server/rate-limit/sliding-window';
import { slidingWindowContract, T0, WINDOW } from '../../helpers/sliding-window-contract';

/** Calls `consume` n times at `now` and returns how many were accepted. */
function consumeMany(counter: InMemorySlidingWindow, key: string, limit: number, now: number, n: number): number {
  let accepted = 0;
  for (let i = 0; i < n; i++) if (counter.consume(key, limit, now).allowed) accepted++;
  return accepted;
}

describe('InMemorySlidingWindow', () => {
  slidingWindowContract(() => new InMemorySlidingWindow(WINDOW));

  it('holds one record per key, dropped when undo empties it or on reset', () => {
    const counter = new InMemorySlidingWindow(WINDOW);
    expect(consumeMany(counter, 'a', 2, T0, 3)).toBe(2);
    expect(consumeMany(counter, 'b', 2, T0, 3)).toBe(2);
    expect(counter.size).toBe(2);
    counter.undo('a');
    counter.undo('a');
    counter.undo('nobody');
    expect(counter.size).toBe(1);
    counter.reset('b');
    expect(counter.size).toBe(0);
  });

  describe('purge', () => {
    it('drops keys whose newest request has left the window and keeps the others whole', () => {
      const counter = new InMemorySlidingWindow(WINDOW);
      counter.consume('idle', 5, T0);
      counter.consume('busy', 5, T0);
      counter.consume('busy', 5, T0 + 30_000);
      counter.purge(T0 + WINDOW - 1);
      expect(counter.size).toBe(2);
      counter.purge(T0 + WINDOW);
      expect(counter.size).toBe(1);
      // 'busy' kept its T0+30s request: 4 more fit, not 5.
      expect(consumeMany(counter, 'busy', 5, T0 + WINDOW, 5)).toBe(4);
      counter.purge(T0 + 30_000 + 2 * WINDOW);
      expect(counter.size).toBe(0);
    });

    it('brings 100,000 one-off keys back to none', () => {
      const counter = new InMemorySlidingWindow(WINDOW);
      for (let i = 0; i < 100_000; i++) {
        counter.consume(`ip:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 100, T0 + (i % 1000));
      }
      expect(counter.size).toBe(100_000);
      counter.purge(T0 + 1000 + WINDOW);
      expect(counter.size).toBe(0);
    });
  });

  describe('high limits', () => {
    it('holds 10,000 exactly while sliding steadily for 20 windows', () => {
      const counter = new InMemorySlidingWindow(WINDOW);
      const limit = 10_000;
      // 3 requests every 10 ms = 18,000 offered per window, 10,000 accepted per window.
      let accepted = 0;
      let refused = 0;
      for (let t = T0; t < T0 + 20 * WINDOW; t += 10) {
        for (let i = 0; i < 3; i++) {
          if (counter.consume('k', limit, t).allowed) accepted++;
          else refused++;
        }
      }
      expect(accepted).toBe(20 * limit);
      expect(refused).toBe(20 * 18_000 - 20 * limit);
    });

    it('costs about the same per request at a limit of 10,000 as at 10 (O(1), not O(limit))', () => {
      // A request every ms keeps both keys saturated (60,000 offered per window), so every request drops and
      // appends or is refused at a full window: with an O(limit) step the 10,000 run would be hundreds of times slower. The bound is loose so a noisy machine cannot fail it.
      const run = (limit: number) => {
        const counter = new InMemorySlidingWindow(WINDOW);
        const started = performance.now();
        for (let i = 0; i < 200_000; i++) counter.consume('k', limit, T0 + i);
        return performance.now() - started;
      };
      const best = (limit: number) => Math.min(run(limit), run(limit), run(limit));
      best(10);
      best(10_000);
      const ratio = best(10_000) / best(10);
      expect(ratio).toBeLessThan(8);
    });
  });
});
