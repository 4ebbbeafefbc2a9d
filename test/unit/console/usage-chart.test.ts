import { describe, expect, it } from 'vitest';
import type { UsageDay } from '../../../shared/api/usage';
import {
  countWords,
  keyTotals,
  scaleTop,
  usageBars,
  usageWords,
  type ChartBox,
} from '../../../console/src/pages/overview/usage-chart';

const BOX: ChartBox = { width: 120, height: 110, left: 10, right: 10, top: 10, bottom: 0 };

function day(date: string, answered: number, refused = 0, rate_limited = 0, keys: UsageDay['keys'] = []): UsageDay {
  return { date, answered, refused, rate_limited, batch_rows: 0, keys };
}

describe('scaleTop', () => {
  it('rounds the busiest day up to 1, 2 or 5 times a power of ten, and is at least 1', () => {
    expect([0, 1, 2, 3, 5, 6, 10, 11, 99, 101, 4999, 5001].map(scaleTop)).toEqual([
      1, 1, 2, 5, 5, 10, 10, 20, 100, 200, 5000, 10000,
    ]);
  });
});

describe('usageBars', () => {
  it('stacks answered, refused and rate-limited from the baseline, to the scale of the busiest day', () => {
    const { bars, top } = usageBars([day('2026-05-01', 6, 3, 1), day('2026-05-02', 0)], BOX);
    expect(top).toBe(10);
    const [first, second] = bars;
    // 100 units of height for 10 checks: 10 units each.
    expect(first!.segments).toEqual([
      { kind: 'answered', y: 50, height: 60 },
      { kind: 'refused', y: 20, height: 30 },
      { kind: 'rate_limited', y: 10, height: 10 },
    ]);
    // A day without checks draws nothing (no zero-height rectangles).
    expect(second!.segments).toEqual([]);
  });

  it('lays the days out oldest at the left, each in its slot, with a gap while there is room', () => {
    const { bars } = usageBars([day('2026-05-01', 1), day('2026-05-02', 1)], BOX);
    // Slots of 50 units from x = 10; bars 3/4 of their slot, centred.
    expect(bars.map((b) => [b.day.date, b.x, b.width])).toEqual([
      ['2026-05-01', 16.25, 37.5],
      ['2026-05-02', 66.25, 37.5],
    ]);
    const many = usageBars(
      Array.from({ length: 400 }, (_, i) => day(`d${i}`, 1)),
      BOX,
    ).bars;
    expect(many[0]!.width).toBeCloseTo(100 / 400);
    expect(many[399]!.x + many[399]!.width).toBeCloseTo(110);
  });
});

describe('keyTotals', () => {
  it('sums each key over the days, a rotated key and the checks by hand on rows of their own, busiest first', () => {
    const days = [
      day('2026-05-01', 3, 1, 0, [
        { key_prefix: 'sk_live_Old1', answered: 2, refused: 1, rate_limited: 0, batch_rows: 0 },
        { key_prefix: 'by hand (console)', answered: 1, refused: 0, rate_limited: 0, batch_rows: 0 },
      ]),
      day('2026-05-02', 0),
      day('2026-05-03', 4, 0, 2, [
        { key_prefix: 'sk_live_New2', answered: 3, refused: 0, rate_limited: 2, batch_rows: 0 },
        { key_prefix: 'by hand (console)', answered: 1, refused: 0, rate_limited: 0, batch_rows: 0 },
      ]),
    ];
    expect(keyTotals(days)).toEqual([
      { key_prefix: 'sk_live_New2', answered: 3, refused: 0, rate_limited: 2, batch_rows: 0 },
      { key_prefix: 'sk_live_Old1', answered: 2, refused: 1, rate_limited: 0, batch_rows: 0 },
      { key_prefix: 'by hand (console)', answered: 2, refused: 0, rate_limited: 0, batch_rows: 0 },
    ]);
    expect(keyTotals([day('2026-05-01', 0)])).toEqual([]);
  });
});

describe('usageWords', () => {
  it('says the checks, then the list rows apart (a batch of rows is one check), with thousands separated', () => {
    const counts = { answered: 1200, refused: 2, rate_limited: 0, batch_rows: 3400 };
    expect(usageWords(counts)).toBe('1,200 answered, 2 not answered, 0 over the limit; 3,400 list rows checked');
    expect(usageWords({ ...counts, batch_rows: 1 })).toMatch(/; 1 list row checked$/);
    expect(usageWords({ ...counts, batch_rows: 0 })).toMatch(/; 0 list rows checked$/);
    expect(countWords(counts)).toBe('1,200 answered, 2 not answered, 0 over the limit');
  });

  it('sums the list rows of each key with its checks', () => {
    const rows = (key_prefix: string, batch_rows: number) => ({
      key_prefix,
      answered: 1,
      refused: 0,
      rate_limited: 0,
      batch_rows,
    });
    const days = [
      day('2026-05-01', 2, 0, 0, [rows('k1', 500), rows('k2', 0)]),
      day('2026-05-02', 1, 0, 0, [rows('k1', 20)]),
    ];
    expect(keyTotals(days).map((k) => [k.key_prefix, k.answered, k.batch_rows])).toEqual([
      ['k1', 2, 520],
      ['k2', 1, 0],
    ]);
  });
});
