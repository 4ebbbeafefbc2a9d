import type { UsageCounts, UsageDay } from '../../../../shared/api/usage';

/** The periods the Overview offers, in days (400: all that is kept). */
export const USAGE_PERIODS = [7, 30, 90, 400] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];

/** Stacked bottom to top in this order. */
export const COUNT_KINDS = ['answered', 'refused', 'rate_limited'] as const;
export type CountKind = (typeof COUNT_KINDS)[number];

/** The counts' names in the console (the API's and the CSV's names are the integrators'). */
export const KIND_WORDS: Record<CountKind, string> = {
  answered: 'Answered',
  refused: 'Not answered',
  rate_limited: 'Over the limit',
};

export type KeyUsage = UsageCounts & { key_prefix: string };

export const totalOf = (counts: UsageCounts) => counts.answered + counts.refused + counts.rate_limited;

/** "3,400": counts as the console writes them. */
const count = (n: number) => n.toLocaleString('en-AU');

/** "3 answered, 1 not answered, 0 over the limit". */
export const countWords = (counts: UsageCounts) =>
  `${count(counts.answered)} answered, ${count(counts.refused)} not answered, ${count(counts.rate_limited)} over the limit`;

/**
 * The rows of lists checked (Check a list, or the batch API), counted apart from the checks: a batch of up to 500 rows
 * is one check among the others. "3,400 list rows checked".
 */
export const ROWS_HEADING = 'List rows checked';
export const rowsWords = (counts: UsageCounts) =>
  `${count(counts.batch_rows)} list ${counts.batch_rows === 1 ? 'row' : 'rows'} checked`;

/** The checks, then the list rows: "120 answered, 2 not answered, 0 over the limit; 3,400 list rows checked". */
export const usageWords = (counts: UsageCounts) => `${countWords(counts)}; ${rowsWords(counts)}`;

/** The top of the chart's scale: the first of 1, 2, 5, 10, 20, 50 … at or above the busiest day (at least 1). */
export function scaleTop(max: number): number {
  let step = 1;
  // Bounded: 30 decades cover any count a day can hold.
  for (let i = 0; i < 30; i++) {
    for (const m of [1, 2, 5]) if (m * step >= max) return m * step;
    step *= 10;
  }
  return max;
}

/** The drawing area inside the SVG's viewBox: its size and the margins kept for the axes' labels. */
export interface ChartBox {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface BarSegment {
  kind: CountKind;
  y: number;
  height: number;
}

export interface Bar {
  day: UsageDay;
  x: number;
  width: number;
  /** Only the kinds the day has (no zero-height rectangles), bottom first. */
  segments: BarSegment[];
}

/**
 * One stacked bar per day, oldest at the left, in viewBox units. Bars fill their slot but for a gap that keeps days
 * apart while there is room for one (up to 120 days).
 */
export function usageBars(days: readonly UsageDay[], box: ChartBox): { bars: Bar[]; top: number } {
  const top = scaleTop(Math.max(0, ...days.map(totalOf)));
  const plotWidth = box.width - box.left - box.right;
  const plotHeight = box.height - box.top - box.bottom;
  const slot = days.length > 0 ? plotWidth / days.length : 0;
  const width = days.length > 120 ? slot : slot * 0.75;
  const bars = days.map((day, i) => {
    let base = box.height - box.bottom;
    const segments: BarSegment[] = [];
    for (const kind of COUNT_KINDS) {
      if (day[kind] === 0) continue;
      const height = (day[kind] / top) * plotHeight;
      base -= height;
      segments.push({ kind, y: base, height });
    }
    return { day, x: box.left + i * slot + (slot - width) / 2, width, segments };
  });
  return { bars, top };
}

/** Each key's counts over the days (a rotated key keeps its own row), most used first, ties by name. */
export function keyTotals(days: readonly UsageDay[]): KeyUsage[] {
  const byKey = new Map<string, KeyUsage>();
  for (const day of days) {
    for (const k of day.keys) {
      const sum = byKey.get(k.key_prefix) ?? {
        key_prefix: k.key_prefix,
        answered: 0,
        refused: 0,
        rate_limited: 0,
        batch_rows: 0,
      };
      for (const kind of COUNT_KINDS) sum[kind] += k[kind];
      sum.batch_rows += k.batch_rows;
      byKey.set(k.key_prefix, sum);
    }
  }
  return [...byKey.values()].sort((a, b) => totalOf(b) - totalOf(a) || a.key_prefix.localeCompare(b.key_prefix));
}
