import { FIRST_CHECK_DATE } from '../../../../shared/api/check';
import { isCalendarDate, sydneyToday, toDisplayDate } from '../../../../shared/domain/dates';
import type { ColumnMapping, RowQuestion } from './list-model';
import { NO_SERVICE_DATE } from './list-words';

/** What one row of the list asks, with a note on how it was read; or why it cannot be asked. */
export type RowReading = { ok: true; question: RowQuestion; note?: string } | { ok: false; reason: string };

const MAX_SUBURB = 100;

/**
 * A postcode as the list holds it: 4 digits; or 3 that a spreadsheet made of a postcode with a leading zero (NT's
 * 0800–0999, the ACT's 0200–0299), given back their zero and said so.
 */
export function readPostcode(raw: string): { postcode: string; note?: string } | { reason: string } {
  const value = raw.trim();
  if (value === '') return { reason: 'No postcode in this row' };
  if (/^\d{4}$/.test(value)) return { postcode: value };
  if (/^[289]\d\d$/.test(value)) {
    return {
      postcode: `0${value}`,
      note: `Postcode ${value} read as 0${value} (a spreadsheet drops the leading zero)`,
    };
  }
  return { reason: `“${value}” is not a postcode: Australian postcodes have 4 digits` };
}

const pad2 = (n: string) => n.padStart(2, '0');

/** dd/mm/yyyy, d/m/yyyy, dd-mm-yyyy, dd.mm.yyyy or YYYY-MM-DD, each perhaps followed by a time (an export's). */
const DAY_FIRST = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:[ T].*)?$/;
const YEAR_FIRST = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T].*)?$/;
const SHORT_YEAR = /^\d{1,2}[/.-]\d{1,2}[/.-]\d{2}(?:[ T].*)?$/;
/** An ISO instant with its zone (a cloud booking system's export: often UTC), whose day depends on where it is read. */
const ZONED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A service date as YYYY-MM-DD. `today` (YYYY-MM-DD, Sydney): a later date has no answer yet. The declaration records
 * begin in 2006, so an earlier date cannot be checked either.
 */
export function readDate(raw: string, today: string): { date: string; note?: string } | { reason: string } {
  const value = raw.trim();
  const dayFirst = DAY_FIRST.exec(value);
  const yearFirst = YEAR_FIRST.exec(value);
  const instant = ZONED_INSTANT.test(value) ? new Date(value) : null;
  let date: string;
  let note: string | undefined;
  // The day in Sydney, as the service judges every day: 2025-03-09T23:30:00Z is half past ten on 10 March there.
  if (instant && !Number.isNaN(instant.getTime())) {
    date = sydneyToday(instant);
    if (date !== value.slice(0, 10)) note = `The time ${value} read as ${toDisplayDate(date)}, its day in Sydney`;
  } else if (dayFirst) date = `${dayFirst[3]}-${pad2(dayFirst[2]!)}-${pad2(dayFirst[1]!)}`;
  else if (yearFirst) date = `${yearFirst[1]}-${pad2(yearFirst[2]!)}-${pad2(yearFirst[3]!)}`;
  else if (SHORT_YEAR.test(value)) {
    return { reason: `The date ${value} has a 2-digit year: write it in full, as dd/mm/yyyy` };
  } else return { reason: `The date “${value}” could not be read: write it as dd/mm/yyyy or YYYY-MM-DD` };
  const written = value.split(/[ T]/)[0]!;
  if (!isCalendarDate(date)) return { reason: `The date ${written} is not a real date` };
  if (date > today) return { reason: `The date ${written} is in the future: it can only be checked once it has come` };
  if (date < FIRST_CHECK_DATE) {
    return {
      reason: `The date ${written} is before ${toDisplayDate(FIRST_CHECK_DATE)}, where the disaster records begin`,
    };
  }
  return note ? { date, note } : { date };
}

/**
 * Why a date column cannot be read day first: it is written month first (3/25/2025, as a spreadsheet set to US
 * regional settings exports), which shows as a second part over 12 where no first part is. Read day first, every day
 * up to the 12th would be judged in the wrong month without a word, so the column's dated rows are refused with this
 * reason instead. Null when the column reads as day first, or holds no such date.
 */
export function monthFirstReason(rows: readonly (readonly string[])[], column: number | null): string | null {
  if (column === null) return null;
  let monthFirst = false;
  for (const row of rows) {
    const parts = DAY_FIRST.exec((row[column] ?? '').trim());
    if (!parts) continue;
    if (Number(parts[1]) > 12) return null;
    if (Number(parts[2]) > 12) monthFirst = true;
  }
  return monthFirst
    ? 'The dates in this list are written month first (such as 3/25/2025): export them as dd/mm/yyyy or YYYY-MM-DD, then read the list again'
    : null;
}

/**
 * A row of the list as the question it sends: only the mapped postcode, suburb and date, read and checked.
 * `dateReason`: the date column's own problem (monthFirstReason), which refuses every row with a date.
 */
export function readRow(
  row: readonly string[],
  mapping: ColumnMapping,
  today: string,
  dateReason: string | null = null,
): RowReading {
  const postcode = readPostcode(row[mapping.postcode] ?? '');
  if ('reason' in postcode) return { ok: false, reason: postcode.reason };
  const question: RowQuestion = { postcode: postcode.postcode };
  const suburb = mapping.suburb === null ? '' : (row[mapping.suburb] ?? '').trim().replace(/\s+/g, ' ');
  if (suburb.length > MAX_SUBURB) {
    return { ok: false, reason: `The suburb is longer than ${MAX_SUBURB} characters` };
  }
  if (suburb) question.suburb = suburb;
  const notes = postcode.note ? [postcode.note] : [];
  const rawDate = mapping.date === null ? '' : (row[mapping.date] ?? '');
  if (rawDate.trim()) {
    if (dateReason) return { ok: false, reason: dateReason };
    const date = readDate(rawDate, today);
    if ('reason' in date) return { ok: false, reason: date.reason };
    question.date = date.date;
    if (date.note) notes.push(date.note);
  } else if (mapping.date !== null) {
    // A list with service dates whose row has none: judged on the day of the check, which a claim audit must see.
    notes.push(NO_SERVICE_DATE);
  }
  return notes.length > 0 ? { ok: true, question, note: notes.join('; ') } : { ok: true, question };
}
