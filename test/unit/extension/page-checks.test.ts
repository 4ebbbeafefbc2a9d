import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PageChecks, type Waiter } from '../../../extension/page/page-checks';
import type { CheckOutcome } from '../../../ui/result/outcome';

/** A field of the page: what it was last shown, and whether it is in view. */
function field(visible = true): Waiter & { shown: (CheckOutcome | { pending: string })[]; last(): string } {
  const shown: (CheckOutcome | { pending: string })[] = [];
  return {
    shown,
    visible: () => visible,
    deliver: (outcome) => shown.push(outcome),
    last() {
      const outcome = shown.at(-1);
      if (!outcome) return 'nothing';
      if ('pending' in outcome) return `pending ${outcome.pending}`;
      return outcome.ok ? `answer ${outcome.postcode}` : `${outcome.problem} ${outcome.postcode}`;
    },
  };
}

function checker(answer: (postcode: string) => CheckOutcome = (postcode) => notFound(postcode)) {
  const asked: string[] = [];
  const checks = new PageChecks({
    check: async (postcode) => {
      asked.push(postcode);
      return answer(postcode);
    },
  });
  return { checks, asked };
}

const notFound = (postcode: string): CheckOutcome => ({ ok: false, postcode, problem: 'postcode_not_found' });
const postcodeOf = (i: number) => String(2000 + i);

beforeEach(() => vi.useFakeTimers({ now: Date.parse('2026-07-01T00:00:00Z') }));
afterEach(() => vi.useRealTimers());

describe('PageChecks', () => {
  it('asks once per distinct postcode, and every field with it gets the answer', async () => {
    const { checks, asked } = checker();
    const fields = Array.from({ length: 300 }, () => field());
    fields.forEach((f, i) => checks.request(postcodeOf(i % 20), f));
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toHaveLength(20);
    fields.forEach((f, i) => expect(f.last()).toBe(`postcode_not_found ${postcodeOf(i % 20)}`));
    // Another field with one of them a moment later: answered without asking.
    const late = field();
    checks.request('2003', late);
    expect(late.last()).toBe('postcode_not_found 2003');
    expect(asked).toHaveLength(20);
  });

  it('asks at most 20 distinct postcodes a minute, those in view first; the rest are not checked yet', async () => {
    const { checks, asked } = checker();
    // 100 postcodes; the fields of 50–69 are in view (the page is scrolled to the middle).
    const fields = Array.from({ length: 100 }, (_, i) => field(i >= 50 && i < 70));
    fields.forEach((f, i) => checks.request(postcodeOf(i), f));
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toEqual(Array.from({ length: 20 }, (_, i) => postcodeOf(50 + i)));
    expect(fields[0]!.last()).toBe('not_checked_yet 2000');
    expect(fields[99]!.last()).toBe('not_checked_yet 2099');
    // A minute on: nothing more is asked for fields out of view.
    await vi.advanceTimersByTimeAsync(61_000);
    expect(asked).toHaveLength(20);
  });

  it('a field not checked yet is checked when it comes into view (as the minute allows) or at once when pressed', async () => {
    const { checks, asked } = checker();
    let inView = false;
    const offscreen: Waiter & ReturnType<typeof field> = { ...field(), visible: () => inView };
    const fields = Array.from({ length: 20 }, () => field());
    fields.forEach((f, i) => checks.request(postcodeOf(i), f));
    checks.request('3000', offscreen);
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toHaveLength(20);
    expect(offscreen.last()).toBe('not_checked_yet 3000');

    inView = true;
    checks.schedulePump();
    await vi.advanceTimersByTimeAsync(0);
    // The minute's checks are spent: it waits for the oldest to leave the minute.
    expect(asked).toHaveLength(20);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(asked.at(-1)).toBe('3000');
    expect(offscreen.last()).toBe('postcode_not_found 3000');

    // Pressed: asked at once, whatever the count.
    const pressed = field(false);
    for (let i = 0; i < 30; i++) checks.request(postcodeOf(100 + i), field(false));
    checks.request('4000', pressed);
    await vi.advanceTimersByTimeAsync(0);
    expect(pressed.last()).toBe('not_checked_yet 4000');
    const before = asked.length;
    checks.request('4000', pressed, true);
    await vi.advanceTimersByTimeAsync(0);
    expect(asked.slice(before)).toEqual(['4000']);
    expect(pressed.last()).toBe('postcode_not_found 4000');
  });

  it('a wait or an error is given to the fields that asked, not kept for later ones', async () => {
    const { checks, asked } = checker((postcode) => ({ ok: false, postcode, problem: 'unreachable' }));
    const [a, b] = [field(), field()];
    checks.request('2000', a);
    checks.request('2000', b);
    await vi.advanceTimersByTimeAsync(0);
    expect([a.last(), b.last()]).toEqual(['unreachable 2000', 'unreachable 2000']);
    checks.request('2000', field());
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toEqual(['2000', '2000']);
  });
});
