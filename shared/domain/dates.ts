import { z } from 'zod';

const ISO_DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** A real calendar date written YYYY-MM-DD (2025-02-29 is refused). */
export const IsoDate = z.string().refine(isCalendarDate, { message: 'Expected a calendar date YYYY-MM-DD' });

export function isCalendarDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const sydneyDate = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Australia/Sydney',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

let cachedMinute = NaN;
let cachedDay = '';

/**
 * The calendar day in Australia/Sydney at instant `now`: the day a declaration's activity is judged on unless a request
 * gives its own date.
 */
export function sydneyToday(now: Date): string {
  // Sydney's offsets are whole half-hours, so the day can only change on a minute boundary: one Intl call a minute
  // instead of one per request.
  const minute = Math.floor(now.getTime() / 60_000);
  if (minute !== cachedMinute) {
    cachedDay = sydneyDate.format(now);
    cachedMinute = minute;
  }
  return cachedDay;
}

/**
 * `date` plus `years` calendar years. 29 February lands on 28 February in a common year, so an anniversary never
 * spills into March (the same convention as date-fns' addYears).
 */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const year = y + years;
  const day = Math.min(d, daysInMonth(year, m));
  return `${String(year).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The calendar day (YYYY-MM-DD) `days` after `date` (negative: before): date arithmetic, no time zone involved. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** YYYY-MM-DD → dd/mm/yyyy, the way Australian clinical notes write dates. */
export function toDisplayDate(date: string): string {
  const [y, m, d] = date.split('-');
  return `${d}/${m}/${y}`;
}
