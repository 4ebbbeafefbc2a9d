import type { RowQuestion, RowState } from './list-model';

/**
 * Each state in words, with a marker that says it without colour (the marker is decorative: the words are read out).
 * A partly covered row never gets the tick of a covered one.
 */
export const STATE_WORDS: Record<RowState, { label: string; marker: string; short: string }> = {
  all: { label: 'Covered — the whole area', marker: '✓', short: 'Covered' },
  some: { label: 'Partly covered — check the council area', marker: '◐', short: 'Partly covered' },
  none: { label: 'Not covered', marker: '✕', short: 'Not covered' },
  not_found: { label: 'Postcode not found', marker: '?', short: 'Not found' },
  bad_row: { label: 'Row could not be read', marker: '!', short: 'Row not readable' },
  not_checked: { label: 'Not checked', marker: '–', short: 'Not checked' },
};

/** The headings of the result columns, before the practice's own: the table's, and each card's labels on a phone. */
export const RESULT_HEADINGS = {
  row: 'Row',
  result: 'Result',
  council: 'Council area (LGA)',
  disasters: 'Disasters',
  judged: 'Judged on',
} as const;

/** The note of a row without a service date in a list that has them: the row is judged on the day of the check. */
export const NO_SERVICE_DATE = 'No service date in this row: judged on the day of the check';

/** The states in the order the page counts and sorts them: answers first, then what needs the practice's attention. */
export const STATE_ORDER: readonly RowState[] = ['all', 'some', 'none', 'not_found', 'bad_row', 'not_checked'];

/** Why rows were not checked, when the whole batch they were in had no answer. */
export const NOT_CHECKED = {
  allowance: "Today's allowance of list rows is used up; it renews at midnight (Sydney time)",
  unreachable: 'The server could not be reached',
  busy: "Your practice's checks for this minute were used up several times over; check the unchecked rows again in a minute",
  inactive: "Your practice's subscription is inactive, so rows are not checked; ask your practice's owner to renew it",
  signedOut: 'You were signed out before these rows were checked; sign in and check them again',
  cancelled: 'You cancelled the check before this row was sent',
  notAccepted: 'The server did not accept these rows; reload the page and check them again',
} as const;

/**
 * One row's refusal in words (the single check's codes, as each item of a batch carries them): a row the practice can
 * correct is `bad_row`, an unknown postcode `not_found`, anything else was not checked.
 */
export function itemErrorOutcome(
  code: string,
  question: RowQuestion,
): { state: 'bad_row' | 'not_found' | 'not_checked'; reason: string } {
  const { postcode, suburb } = question;
  switch (code) {
    case 'postcode_not_found':
      return { state: 'not_found', reason: `Postcode ${postcode} is not in the postcode data: check the postcode` };
    case 'invalid_postcode':
      return {
        state: 'bad_row',
        reason: `“${postcode}” is not an Australian postcode: they run 0200–0299 and 0800–9999`,
      };
    case 'invalid_suburb':
      return {
        state: 'bad_row',
        reason: `“${suburb ?? ''}” is not a suburb of postcode ${postcode}: check its spelling`,
      };
    case 'invalid_date':
      return {
        state: 'bad_row',
        reason: 'The date cannot be checked: dates run from 01/01/2006 to today',
      };
    case 'invalid_request':
      return { state: 'bad_row', reason: 'The row could not be checked as written: check its postcode and suburb' };
    case 'data_unavailable':
      return { state: 'not_checked', reason: 'The disaster data has not been loaded yet; check this row again later' };
    default:
      return { state: 'not_checked', reason: 'The server could not check this row; check it again later' };
  }
}

const number = (n: number) => n.toLocaleString('en-AU');

/** "1 row", "1,500 rows". */
export const rows = (n: number) => `${number(n)} ${n === 1 ? 'row' : 'rows'}`;

/** The progress of a check under way: "Checked 1,500 of 5,000 rows". */
export const progressWords = (checked: number, total: number) => `Checked ${number(checked)} of ${rows(total)}`;
