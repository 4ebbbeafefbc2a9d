import { addYears } from '../domain/dates';
import type { Declaration } from '../domain/declaration';
import type { StatusColor } from '../api/check';

/** The two dates the activity rule needs; lets callers pass a DisasterView or a stored Declaration alike. */
export type DatedDeclaration = Pick<Declaration, 'start_date' | 'end_date'>;

/** What the disaster ordering looks at. */
export interface SortableDisaster {
  agrn: string;
  start_date: string;
  is_active: boolean;
}

/**
 * Active on day D: started on or before D and not ended before D. All dates are YYYY-MM-DD, so plain string comparison
 * is calendar comparison; the end date is inclusive because a declaration ending today still covers a consult today.
 */
export function isActive(decl: DatedDeclaration, day: string): boolean {
  return decl.start_date <= day && (decl.end_date === null || decl.end_date >= day);
}

/**
 * An active declaration is amber from its second anniversary on, green before; red when not active. The anniversary is
 * taken forward from the start, not back from the day: addYears clamps 29 Feb to 28 Feb, so a 29 Feb 2024 start turns
 * amber on 28 Feb 2026 (counting back from 28 Feb 2026 would give 28 Feb 2024 and leave it green a day too long), while
 * on 29 Feb 2028 a 28 Feb 2026 start is amber and a 1 Mar 2026 start is not.
 */
export function declarationColor(decl: DatedDeclaration, day: string): StatusColor {
  if (!isActive(decl, day)) return 'red';
  return addYears(decl.start_date, 2) <= day ? 'amber' : 'green';
}

/**
 * The summary's colour: red when none is active; one recent active declaration is enough for green; amber only when
 * every active one is old. Takes the colours of all related declarations, red ones included, so callers need not filter
 * first.
 */
export function summaryColor(colors: readonly StatusColor[]): StatusColor {
  if (colors.includes('green')) return 'green';
  if (colors.includes('amber')) return 'amber';
  return 'red';
}

/**
 * AGRNs are digit strings of varying length; comparing them as text would put "999" after "1000". Leading zeros are
 * ignored so that "0123" and "123" compare equal in magnitude.
 */
export function compareAgrn(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The order of `disasters` as a comparator: active first, newest start first, then higher AGRN first. */
export function compareDisasters(a: SortableDisaster, b: SortableDisaster): number {
  if (a.is_active !== b.is_active) return a.is_active ? -1 : 1;
  if (a.start_date !== b.start_date) return a.start_date < b.start_date ? 1 : -1;
  return compareAgrn(b.agrn, a.agrn);
}

/** Returns a sorted copy so the caller's array (often straight from the store) is never reordered under it. */
export function sortDisasters<T extends SortableDisaster>(disasters: readonly T[]): T[] {
  return [...disasters].sort(compareDisasters);
}
