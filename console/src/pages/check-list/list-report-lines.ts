import { displayDate } from '../../../../ui/common/display-dates';
import type { ListRun, RowState } from './list-model';
import {
  councilAreaWords,
  disasterPeriod,
  heldDisasters,
  rowNumber,
  rowOutcome,
  rowPlace,
  stateWords,
} from './row-words';
import { instrumentReference } from './instrument-notes';
import { NO_SERVICE_DATE, STATE_ORDER, STATE_WORDS } from './list-words';

/** A disaster that held on the day a row was judged on, as the report names it. */
export interface ReportDisaster {
  title: string;
  agrn: string;
  /** "22/02/2025 – no end date". */
  period: string;
  /**
   * Which instrument stands behind it, pointing at the report's note that says what to confirm: "DRFA activation
   * (note 1)"; its name alone without a note; '' when the server does not say.
   */
  instrument: string;
}

/** One of the practice's own columns of a row, for a report that includes them. */
export interface OwnCell {
  heading: string;
  cell: string;
}

/** One line of the printable report: one row of the list, whatever became of it. */
export interface ReportLine {
  /** The row's number as the page shows it (1: the first row after the headings). */
  row: number;
  state: RowState;
  postcode: string;
  suburb: string;
  /**
   * What held, and on which day: "On 10/03/2025: covered" for a row with its service date; a row without one was
   * judged on the day of the check and says so; a row never judged says only its state.
   */
  verdict: string;
  /**
   * "Lismore; Kyogle", or with "(covered)" / "(not covered)" when only some are, since the patient's decides; ''
   * without an answer.
   */
  councilAreas: string;
  disasters: ReportDisaster[];
  /** Why a row has no answer (bad, not found, not checked); null when it has one. */
  reason: string | null;
  /** How the row was read when not as written ("Postcode 800 read as 0800"); null when as written. */
  note: string | null;
  /** The practice's other columns (not postcode, suburb or date), when asked for; empty cells left out. */
  own: OwnCell[];
}

function verdictOf(state: RowState, judgedOn: string | undefined, dated: boolean): string {
  if (!judgedOn) return STATE_WORDS[state].label;
  const day = displayDate(judgedOn);
  const when = dated ? `On ${day}` : `On ${day} (the day of the check: the row has no service date)`;
  return `${when}: ${STATE_WORDS[state].short.toLowerCase()}`;
}

function ownCells(run: ListRun, index: number): OwnCell[] {
  const { postcode, suburb, date } = run.mapping;
  const sent = new Set([postcode, suburb, date]);
  const cells = run.table.rows[index] ?? [];
  return cells.flatMap((cell, column) =>
    sent.has(column) || cell === '' ? [] : [{ heading: run.table.headers[column] || `Column ${column + 1}`, cell }],
  );
}

/**
 * Every row of the list as a line of the report, in the list's order: none is left out, whatever its state. `notes`
 * are the report's numbered instrument notes (instrumentNotes of the run's outcomes), said once above the lines: a line
 * points at its note by number, so 5,000 Brisbane rows do not print the same long sentence 5,000 times.
 */
export function reportLines(run: ListRun, notes: readonly string[], { includeOwnColumns = false } = {}): ReportLine[] {
  return run.table.rows.map((_, index) => {
    const outcome = rowOutcome(run, index);
    const { postcode, suburb } = rowPlace(run, index);
    return {
      row: rowNumber(run.table, index),
      state: outcome.state,
      postcode,
      suburb,
      // A row whose note already says it has no service date is not told so twice.
      verdict: verdictOf(
        outcome.state,
        outcome.judgedOn,
        outcome.question?.date !== undefined || outcome.note?.includes(NO_SERVICE_DATE) === true,
      ),
      councilAreas: councilAreaWords(outcome),
      disasters: heldDisasters(outcome).map((d) => ({
        title: d.title,
        agrn: d.agrn,
        period: disasterPeriod(d),
        instrument: instrumentReference(d, notes),
      })),
      reason: outcome.answer ? null : (outcome.reason ?? null),
      note: outcome.note ?? null,
      own: includeOwnColumns ? ownCells(run, index) : [],
    };
  });
}

/** How many rows ended in each state, every state listed (a 0 says as much as a count). */
export function stateCounts(run: ListRun): { state: RowState; words: string; count: number }[] {
  const counts = new Map<RowState, number>();
  run.table.rows.forEach((_, index) => {
    const { state } = rowOutcome(run, index);
    counts.set(state, (counts.get(state) ?? 0) + 1);
  });
  return STATE_ORDER.map((state) => ({ state, words: stateWords(state), count: counts.get(state) ?? 0 }));
}

/** The report's period: "10/03/2025 to 29/11/2026", one day alone, or why there is none. */
export function periodWords(period: ListRun['period']): string {
  if (!period) return 'None: no row was checked';
  if (period.from === period.to) return displayDate(period.from);
  return `${displayDate(period.from)} to ${displayDate(period.to)}`;
}
