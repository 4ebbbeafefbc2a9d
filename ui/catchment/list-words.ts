import { joinNames } from '../../shared/eligibility/texts';
import { plural } from '../common/plural';
import type { PostcodeList } from './postcode-list';

/** How many offending entries a sentence names before "and N more" (the list under it names them all). */
const NAMED_INLINE = 5;

/** "abc, 12345 and 40OO"; past NAMED_INLINE, "abc, …, 0100 and 3 more". */
export function namedEntries(entries: readonly string[]): string {
  if (entries.length <= NAMED_INLINE) return joinNames(entries);
  return `${entries.slice(0, NAMED_INLINE).join(', ')} and ${entries.length - NAMED_INLINE} more`;
}

/**
 * What was read, every entry accounted for: "Read 9 entries: 6 postcodes, 1 not a postcode (abc), 2 repeats (4000
 * and 4055, each saved once)."
 */
export function readWords(list: PostcodeList): string {
  const n = list.entries.length;
  const parts = [plural(list.postcodes.length, 'postcode')];
  const k = list.invalid.length;
  if (k > 0) parts.push(`${k} not ${k === 1 ? 'a postcode' : 'postcodes'} (${namedEntries(list.invalid)})`);
  const repeats = n - list.postcodes.length - k;
  if (repeats > 0) parts.push(`${plural(repeats, 'repeat')} (${namedEntries(list.repeated)}, each saved once)`);
  return `Read ${n} ${n === 1 ? 'entry' : 'entries'}: ${parts.join(', ')}.`;
}

/** Which part of the text the entries were read from, when not all of it: the CSV's column, or after a heading. */
export function sourceWords(list: PostcodeList): string | null {
  if (list.column !== null) return `Read from the “${list.column}” column; the other columns are not saved.`;
  if (list.heading !== null) return `The first line, “${list.heading}”, was read as a heading.`;
  return null;
}
