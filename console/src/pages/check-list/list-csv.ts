import Papa from 'papaparse';
import { sydneyToday } from '../../../../shared/domain/dates';
import { displayDate } from '../../../../ui/common/display-dates';
import type { ListRun, RowOutcome } from './list-model';
import { councilAreaWords, heldDisasters, instrumentWords, rowOutcome, stateWords } from './row-words';

/** The columns added after the practice's own, in this order. */
export const RESULT_COLUMNS = [
  'Result',
  'Council area (LGA)',
  'Disasters',
  'Disaster reference (AGRN)',
  'Start',
  'End',
  'State declaration or DRFA activation',
  'Judged on',
  'Reason',
  'Note',
] as const;

/**
 * A cell a spreadsheet would run as a formula: it starts with =, +, -, @, or a tab or carriage return (which some
 * spreadsheets skip before looking). Papaparse's own default pattern (`^[=+\-@\t\r].*$`) misses such a cell when it
 * holds a line break, since `.` stops at one; only the first character matters.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Excel reads a CSV without a byte order mark in the computer's legacy code page, which garbles "Zoë" or "Nguyễn". */
const BOM = '\uFEFF';

function resultCells(outcome: RowOutcome): string[] {
  const held = heldDisasters(outcome);
  const each = (cell: (d: (typeof held)[number]) => string) => held.map(cell).join('; ');
  return [
    stateWords(outcome.state),
    councilAreaWords(outcome),
    each((d) => d.title),
    each((d) => d.agrn),
    each((d) => displayDate(d.start_date)),
    each((d) => (d.end_date ? displayDate(d.end_date) : 'no end date')),
    each(instrumentWords),
    outcome.judgedOn ? displayDate(outcome.judgedOn) : '',
    outcome.reason ?? outcome.answer?.summary.headline_text ?? '',
    outcome.note ?? '',
  ];
}

/**
 * The list as read, every row in its order with its own cells as they were, followed by the result columns (RFC 4180,
 * CRLF). Every cell — the practice's own too — that a spreadsheet would run as a formula gets a leading apostrophe:
 * the practice's cells may hold what patients typed (online bookings), and this file is opened as the console's.
 */
export function listCsv(run: ListRun): string {
  const { headers, rows } = run.table;
  // Short rows are padded (and a row longer than the headings widens them) so the result columns stay aligned.
  const width = rows.reduce((most, row) => Math.max(most, row.length), headers.length);
  const own = (cells: readonly string[]) => [...cells, ...Array<string>(width - cells.length).fill('')];
  const data = [
    [...own(headers), ...RESULT_COLUMNS],
    ...rows.map((cells, i) => [...own(cells), ...resultCells(rowOutcome(run, i))]),
  ];
  return `${BOM}${Papa.unparse(data, { escapeFormulae: FORMULA_START, newline: '\r\n' })}\r\n`;
}

/** "list-results-2026-11-29.csv": the Sydney day the list was checked. */
export const listCsvName = (run: ListRun) => `list-results-${sydneyToday(new Date(run.ranAt))}.csv`;
