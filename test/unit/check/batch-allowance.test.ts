import { describe, expect, it } from 'vitest';
import { InMemoryBatchAllowance, secondsUntilSydneyMidnight } from '../../../server/check/batch-allowance';

describe('secondsUntilSydneyMidnight', () => {
  it('counts to the next midnight in Sydney, daylight saving or not', () => {
    // 23:00 AEST (UTC+10) on 2026-06-30 → one hour.
    expect(secondsUntilSydneyMidnight(new Date('2026-06-30T13:00:00.000Z'))).toBe(3600);
    // 00:00:01 AEDT (UTC+11) on 2026-12-01 → a whole day less a second.
    expect(secondsUntilSydneyMidnight(new Date('2026-11-30T13:00:01.000Z'))).toBe(86_399);
    // The day daylight saving starts (2026-10-04, 23 hours long): from its first instant, 23 hours.
    expect(secondsUntilSydneyMidnight(new Date('2026-10-03T14:00:00.000Z'))).toBe(23 * 3600);
    // Never 0: a Retry-After of 0 would invite an immediate retry that is refused again.
    expect(secondsUntilSydneyMidnight(new Date('2026-06-30T13:59:59.999Z'))).toBe(1);
  });
});

describe('InMemoryBatchAllowance', () => {
  it('takes all the rows or none, per subscription and day, and says what is left', async () => {
    const allowance = new InMemoryBatchAllowance(1000);
    expect(await allowance.take('a', '2026-11-29', 600)).toEqual({ ok: true, left: 400 });
    // A batch that does not fit takes nothing: the next smaller one still fits.
    expect(await allowance.take('a', '2026-11-29', 500)).toEqual({ ok: false, left: 400 });
    expect(await allowance.take('a', '2026-11-29', 400)).toEqual({ ok: true, left: 0 });
    expect(await allowance.take('a', '2026-11-29', 1)).toEqual({ ok: false, left: 0 });
    // Another organisation has its own; the next day starts again from the whole allowance.
    expect(await allowance.take('b', '2026-11-29', 1000)).toEqual({ ok: true, left: 0 });
    expect(await allowance.take('a', '2026-11-30', 1000)).toEqual({ ok: true, left: 0 });
    expect(await allowance.take('a', '2026-11-30', 1001 - 1000)).toEqual({ ok: false, left: 0 });
  });
});
