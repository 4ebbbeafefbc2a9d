import type { DisasterView } from '../../../../shared/api/check';
import { answerCoveredLgas } from '../../../../shared/eligibility/lga-coverage';
import { displayDate } from '../../../../ui/common/display-dates';
import type { ListRun, ListTable, RowOutcome, RowState } from './list-model';
import { INSTRUMENT_SHORT } from './instrument-notes';
import { STATE_WORDS } from './list-words';

/**
 * A row's result in the words of the list's downloads (its CSV and its printable report): one place, so that the file
 * a practice keeps and the report it prints never say a row's result two ways.
 */

/** A row's state in the page's own words (list-words.ts), so the page, the file and the report say it alike. */
export const stateWords = (state: RowState) => STATE_WORDS[state].label;

/** Rows the run never reached are said so, never left blank (a list that lost entries silently). */
const NOT_REACHED: RowOutcome = { state: 'not_checked', reason: 'The check stopped before this row.' };

/** The outcome of the row at `index`. */
export const rowOutcome = (run: ListRun, index: number): RowOutcome => run.outcomes[index] ?? NOT_REACHED;

/** A row's number as the page's results show it: its line under the headings in the file (ListTable.lines). */
export const rowNumber = (table: ListTable, index: number) => table.lines[index] ?? index + 1;

/** The disasters that held on the day judged on (the answer's active ones): what a claim's review asks about. */
export const heldDisasters = (outcome: RowOutcome): DisasterView[] =>
  outcome.answer?.disasters.filter((d) => d.is_active) ?? [];

/**
 * The postcode's council areas, "Lismore; Kyogle"; when only some are covered, each says which it is, since the
 * patient's decides: "Brisbane (covered); Moreton Bay (not covered)".
 */
export function councilAreaWords(outcome: RowOutcome): string {
  const answer = outcome.answer;
  if (!answer) return '';
  const split = outcome.state === 'some' ? answerCoveredLgas(answer) : null;
  return answer.location.lgas
    .map((lga) => {
      if (!split) return lga.lga_name;
      const covered = split.covered.some((c) => c.lga_code === lga.lga_code && c.lga_name === lga.lga_name);
      return `${lga.lga_name} (${covered ? 'covered' : 'not covered'})`;
    })
    .join('; ');
}

/** "22/02/2025 – no end date": DisasterAssist's end is the event's, and a declaration without one is still active. */
export const disasterPeriod = (d: DisasterView) =>
  `${displayDate(d.start_date)} – ${d.end_date ? displayDate(d.end_date) : 'no end date'}`;

/** The instrument behind a disaster in a few words ('' from a server that does not say). */
export const instrumentWords = (d: DisasterView) => (d.instrument ? INSTRUMENT_SHORT[d.instrument] : '');

/** The postcode and suburb of a row: as asked, or the cells as read when the row could not be asked. */
export function rowPlace(run: ListRun, index: number): { postcode: string; suburb: string } {
  const cells = run.table.rows[index] ?? [];
  const asked = run.outcomes[index]?.question;
  const { postcode, suburb } = run.mapping;
  return {
    postcode: asked?.postcode ?? cells[postcode] ?? '',
    suburb: asked ? (asked.suburb ?? '') : suburb === null ? '' : (cells[suburb] ?? ''),
  };
}
