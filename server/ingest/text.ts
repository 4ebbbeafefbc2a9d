import { isCalendarDate } from '../../shared/domain/dates';
import { isStateCode, type StateCode } from '../../shared/domain/declaration';

/**
 * Text as a person reads it: zero-width characters gone (DisasterAssist pages are full of U+200B), every kind of
 * space (including &nbsp;, which cheerio decodes to U+00A0) one plain space, trimmed.
 */
export function cleanText(text: string): string {
  return text
    .replace(/[\u200B-\u200D\u2060\uFEFF]/g, '')
    .replace(/[\s\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+/g, ' ')
    .trim();
}

/** "1/03/2025" (d/mm/yyyy, as DisasterAssist writes it) → "2025-03-01"; null for anything else or a non-date. */
export function parseDayMonthYear(text: string): string | null {
  const m = /^([0-9]{1,2})\/([0-9]{1,2})\/([0-9]{4})$/.exec(cleanText(text));
  if (!m) return null;
  const iso = `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
  return isCalendarDate(iso) ? iso : null;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** "Jul 2025" (the list page's month and year) → "2025-07"; null for "- -" (ongoing) or anything else. */
export function parseMonthYear(text: string): string | null {
  const m = /^([A-Za-z]{3})[a-z]*\.? ([0-9]{4})$/.exec(cleanText(text));
  if (!m) return null;
  const month = MONTHS.indexOf(m[1]!.toLowerCase());
  return month < 0 ? null : `${m[2]}-${String(month + 1).padStart(2, '0')}`;
}

/** "1,195" / " 1195 " → "1195"; null when it is not a whole number. */
export function parseAgrn(text: string): string | null {
  const digits = cleanText(text).replace(/[,\s]/g, '');
  if (!/^[0-9]{1,6}$/.test(digits)) return null;
  return String(Number(digits));
}

const STATE_BY_NAME: Record<string, StateCode> = {
  'new south wales': 'NSW',
  victoria: 'VIC',
  queensland: 'QLD',
  'south australia': 'SA',
  'western australia': 'WA',
  tasmania: 'TAS',
  'northern territory': 'NT',
  'australian capital territory': 'ACT',
};

/** "Queensland", "QLD", "Qld" → "QLD"; null for anything that is not an Australian state or territory. */
export function parseState(text: string): StateCode | null {
  const cleaned = cleanText(text);
  const upper = cleaned.toUpperCase();
  if (isStateCode(upper)) return upper;
  return STATE_BY_NAME[cleaned.toLowerCase()] ?? null;
}
