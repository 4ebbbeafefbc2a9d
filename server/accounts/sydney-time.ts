const offsetFormat = new Intl.DateTimeFormat('en-AU', { timeZone: 'Australia/Sydney', timeZoneName: 'longOffset' });

/** Sydney's UTC offset in minutes at `instant` (+600 or +660). */
function sydneyOffsetMinutes(instant: Date): number {
  const name = offsetFormat.formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT+10:00';
  const m = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
  if (!m) return 600;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/** The instant at which day `date` (YYYY-MM-DD) starts in Australia/Sydney. */
export function startOfSydneyDay(date: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const utcMidnight = Date.UTC(y, m - 1, d);
  // The offset at local midnight; looked up at the guess itself so a DST change that day is accounted for.
  const guess = new Date(utcMidnight - sydneyOffsetMinutes(new Date(utcMidnight)) * 60_000);
  return new Date(utcMidnight - sydneyOffsetMinutes(guess) * 60_000);
}

/** The first instant after day `date` ends in Sydney: a subscription "expiring 2026-12-31" works all that day. */
export function endOfSydneyDay(date: string): Date {
  const next = new Date(startOfSydneyDay(date).getTime() + 36 * 3600_000);
  const nextDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(next);
  return startOfSydneyDay(nextDate);
}
