import type { DisasterView, Instrument } from '../../../../shared/api/check';
import { answerCoveredLgas } from '../../../../shared/eligibility/lga-coverage';
import { displayDate } from '../../../../ui/common/display-dates';
import type { ListRun, RowOutcome, RowState } from './list-model';

/**
 * A row's result in the words of the list's downloads (its CSV and its printable report): one place, so that the file
 * a practice keeps and the report it prints never say a row's result two ways.
 */

/** Every state in the order the counts are given: the answers first, then the rows without one. */
export const ROW_STATES: readonly RowState[] = ['all', 'some', 'none', 'not_found', 'bad_row', 'not_checked'];

export const ROW_STATE_WORDS: Record<RowState, string> = {
  all: 'Covered',
  // Never a plain "covered": only some of the postcode's council areas are, and the patient's decides.
  some: 'Partly covered — check the council area',
  none: 'Not covered',
  not_found: 'Postcode not found',
  bad_row: 'Bad row',
  not_checked: 'Not checked',
};

export const INSTRUMENT_WORDS: Record<Instrument, string> = {
  state_declaration: 'State declaration',
  drfa_activation: 'DRFA activation',
};

/** Rows the run never reached are said so, never left blank (a list that lost entries silently). */
const NOT_REACHED: RowOutcome = { state: 'not_checked', reason: 'The check stopped before this row.' };

/** The outcome of the row at `index`. */
export const rowOutcome = (run: ListRun, index: number): RowOutcome => run.outcomes[index] ?? NOT_REACHED;

/** The spreadsheet's number of a row (its heading is row 1), which ties a report line to the practice's own file. */
export const spreadsheetRow = (index: number) => index + 2;

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
export const instrumentWords = (d: DisasterView) => (d.instrument ? INSTRUMENT_WORDS[d.instrument] : '');

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
