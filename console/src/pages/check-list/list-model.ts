import type { BatchMetadata } from '../../../../shared/api/check-batch';
import type { CheckData } from '../../../../shared/api/check';

/**
 * What the "Check a list" page works on, from the file read in the browser to the results beside it. The practice's
 * own columns (names, dates of birth, Medicare numbers …) stay in `ListTable.rows` and never leave the page: only the
 * mapped postcode, suburb and date are sent (RowQuestion).
 */

/** The list as read (papaparse): its headings and its rows, every cell as text, in the file's order. */
export interface ListTable {
  headers: string[];
  rows: string[][];
  /**
   * Each row's number in the file: 1 is the line under the headings, blank lines counted (they are not rows to check,
   * but a practice finds a report's "row 12" by counting down its own spreadsheet, blank lines and all).
   */
  lines: number[];
}

/** Which of the list's columns (indexes into `headers`) hold what is sent; null: no such column. */
export interface ColumnMapping {
  postcode: number;
  suburb: number | null;
  /** The date of the service or appointment (dd/mm/yyyy or YYYY-MM-DD); without it, each row is judged on today. */
  date: number | null;
}

/** What one row asks the server: exactly the three fields that may leave the page. */
export interface RowQuestion {
  postcode: string;
  suburb?: string;
  /** YYYY-MM-DD. */
  date?: string;
}

/**
 * A row's state at a glance. all: every council area of the postcode (or the suburb's) is under an active declaration;
 * some: only some are, so the patient's council area decides; none: no active declaration; not_found: no such
 * postcode; bad_row: the row could not be asked (its reason says why); not_checked: not asked (allowance used up,
 * server unreachable — its reason says which), never silently missing.
 */
export type RowState = 'all' | 'some' | 'none' | 'not_found' | 'bad_row' | 'not_checked';

/** One row's result, index-aligned with `ListTable.rows`. */
export interface RowOutcome {
  state: RowState;
  /** In words, for bad_row and not_checked (and a refused item's message, reworded). */
  reason?: string;
  /** How the row was read, when it was not as written ("Postcode 800 read as 0800 …"), in words. */
  note?: string;
  /** What was asked, once the row could be read. */
  question?: RowQuestion;
  /** The day the declarations were judged on (YYYY-MM-DD): the row's service date, or the day it was run. */
  judgedOn?: string;
  /** The whole answer, when the server gave one (council areas, disasters with their instrument, proforma …). */
  answer?: CheckData;
}

/** One run of the page over a list: what the downloads and the printable report are made of. */
export interface ListRun {
  table: ListTable;
  mapping: ColumnMapping;
  outcomes: RowOutcome[];
  /** The organisation's name and who ran it (the signed-in member's e-mail), for the report. */
  organisation: string;
  ranBy: string;
  /** When the run finished (ISO). */
  ranAt: string;
  /** The earliest and latest day judged on, YYYY-MM-DD (the report's period); null when no row was checked. */
  period: { from: string; to: string } | null;
  /** The data's refresh time and sources, from the last batch answered; null when none was. */
  metadata: BatchMetadata | null;
}
