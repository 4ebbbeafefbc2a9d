import { sydneyToday } from './dates';

/**
 * The days of a subscription as people read them, the same in the admin CLI, the console and the audit trail. A
 * subscription's end is stored as an instant: the operator's `--expires 2027-06-30` as the first instant after that
 * day in Sydney (1 July, 00:00 AEST), a Stripe period as the moment it ends. Shown as that instant, the day the
 * operator typed reads as "1 July 2027, 12:00 am"; what the practice wants is the last day it has paid for.
 */

// Formatted in UTC because its input is already a calendar day: no time zone may move it.
const LONG_DAY = new Intl.DateTimeFormat('en-AU', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** A calendar day YYYY-MM-DD as written out in Australia: "30 June 2027". */
export function longDay(date: string): string {
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) ? 'an unknown date' : LONG_DAY.format(ms);
}

/**
 * The last day (YYYY-MM-DD, Australia/Sydney) of access that ends at the instant `endsAt`: the day before when it
 * ends at midnight (the operator's end dates), else the day it ends in. null for something that is no instant.
 */
export function lastAccessDay(endsAt: string): string | null {
  const ms = Date.parse(endsAt);
  return Number.isNaN(ms) ? null : sydneyToday(new Date(ms - 1));
}

/** The last day of access ending at `endsAt`, written out: "30 June 2027". */
export function lastAccessDayWords(endsAt: string): string {
  return longDay(lastAccessDay(endsAt) ?? '');
}

/** The day (Sydney) the instant `at` falls on, written out: a renewal's "Renews on 30 June 2027". */
export function dayWords(at: string): string {
  const ms = Date.parse(at);
  return longDay(Number.isNaN(ms) ? '' : sydneyToday(new Date(ms)));
}

/** "paid until 30 June 2027" for a subscription whose access ends at `expiresAt`, "no end date" without: mid-line. */
export function paidUntil(expiresAt: string | null): string {
  return expiresAt === null ? 'no end date' : `paid until ${lastAccessDayWords(expiresAt)}`;
}

/** "Paid until 30 June 2027" (or "No end date"): paidUntil to start a line. */
export function paidUntilWords(expiresAt: string | null): string {
  const words = paidUntil(expiresAt);
  return words.charAt(0).toUpperCase() + words.slice(1);
}
