import { describe, expect, it } from 'vitest';
import { endOfSydneyDay } from '../../../server/accounts/sydney-time';
import { dayWords, lastAccessDay, longDay, paidUntilWords } from '../../../shared/domain/paid-until';

describe('paid until: the last paid day, in Sydney, whatever instant stores it', () => {
  it('the day the operator typed comes back as the last paid day, not the midnight after it', () => {
    // set-subscription --expires 2027-06-30 stores 1 July 00:00 in Sydney (2027-06-30T14:00:00Z).
    const stored = endOfSydneyDay('2027-06-30').toISOString();
    expect(stored).toBe('2027-06-30T14:00:00.000Z');
    expect(lastAccessDay(stored)).toBe('2027-06-30');
    expect(paidUntilWords(stored)).toBe('Paid until 30 June 2027');
  });

  it('holds on the days daylight saving starts and ends, and across a year', () => {
    for (const day of ['2026-10-04', '2027-04-04', '2026-12-31', '2028-02-29', '2027-01-01']) {
      expect(lastAccessDay(endOfSydneyDay(day).toISOString()), day).toBe(day);
    }
    expect(paidUntilWords(endOfSydneyDay('2026-12-31').toISOString())).toBe('Paid until 31 December 2026');
  });

  it('an instant during a day (a Stripe period end) is that Sydney day, also when it is still the day before in UTC', () => {
    // 09:30 on 1 July in Sydney is 23:30 on 30 June in UTC.
    expect(lastAccessDay('2027-06-30T23:30:00Z')).toBe('2027-07-01');
    expect(dayWords('2027-06-30T23:30:00Z')).toBe('1 July 2027');
    expect(lastAccessDay('2027-07-01T05:00:00Z')).toBe('2027-07-01');
  });

  it('no end date, and something that is no date, in words', () => {
    expect(paidUntilWords(null)).toBe('No end date');
    expect(lastAccessDay('not a date')).toBeNull();
    expect(paidUntilWords('not a date')).toBe('Paid until an unknown date');
    expect(longDay('2027-06-30')).toBe('30 June 2027');
  });
});
