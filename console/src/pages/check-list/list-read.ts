import Papa from 'papaparse';
import type { ListTable } from './list-model';

/** The most rows a list may have (not counting its heading row and blank lines). */
export const MAX_LIST_ROWS = 5_000;
/** Far more than 5,000 rows of any practice export: a larger file is not a list this page can take. */
export const MAX_LIST_BYTES = 20 * 1024 * 1024;

const count = (n: number) => n.toLocaleString('en-AU');

/** A list read, with the blank lines left out of it (said in a note, never silently lost); or why it cannot be used. */
export type ListReading = { ok: true; table: ListTable; blankLines: number } | { ok: false; message: string };

const refuse = (message: string): ListReading => ({ ok: false, message });

const isBlank = (row: readonly string[]) => row.every((cell) => cell.trim() === '');

/** A postcode (3 or 4 digits) or a date as a whole cell: never a column's heading. */
const DATA_CELL = /^(\d{3,4}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{1,2}-\d{1,2})$/;

/**
 * A first row that is all numbers and dates, or holds a postcode or a date, is the list's first row of data, not its
 * headings: read as headings, that patient would never be checked.
 */
const looksLikeData = (headers: readonly string[]) =>
  headers.some((cell) => cell.trim() !== '') &&
  (headers.every((cell) => /^[\d\s/.:-]*$/.test(cell)) || headers.some((cell) => DATA_CELL.test(cell.trim())));

/**
 * The text of a pasted list or a CSV file as a table: comma-, tab- (a spreadsheet's copy) or semicolon-separated, the
 * separator found by papaparse; the first non-blank row is the headings. Every cell is kept as text.
 */
export function readListText(text: string): ListReading {
  const body = text.replace(/^\uFEFF/, '');
  if (body.includes('\u0000')) return refuse(NOT_TEXT);
  if (body.trim() === '') return refuse(EMPTY);
  const parsed = Papa.parse<string[]>(body.replace(/\r?\n$/, ''), { skipEmptyLines: false });
  const unclosed = parsed.errors.find((e) => e.code === 'MissingQuotes');
  if (unclosed) {
    return refuse(
      `The list could not be read: a quotation mark (") opened on row ${count((unclosed.row ?? 0) + 1)} is never closed. Check that row in your spreadsheet and export the list again.`,
    );
  }
  // A cell that opens with a quotation mark and goes on after closing it ("Smith" Jr): the reader then takes every
  // line up to the next quotation mark as part of that cell, so rows would vanish into it without a word.
  const stray = parsed.errors.find((e) => e.code === 'InvalidQuotes');
  if (stray) {
    return refuse(
      `The list could not be read: a quotation mark (") on row ${count((stray.row ?? 0) + 1)} is not around a whole cell, so the rows after it cannot be told apart. Check that row in your spreadsheet and export the list again.`,
    );
  }
  const all = parsed.data.map((row) => row.map((cell) => cell ?? ''));
  const first = all.findIndex((row) => !isBlank(row));
  // Only separators (a spreadsheet's empty but formatted sheet saved as CSV): nothing to read.
  if (first === -1) return refuse(EMPTY);
  const headers = all[first]!.map((h) => h.trim());
  if (looksLikeData(headers)) {
    return refuse(
      `The list has no heading row: its first row (${headers.filter(Boolean).join(', ')}) looks like data. Add a first row that names the columns, for example Postcode, Suburb, Date of service.`,
    );
  }
  const lines = all.slice(first + 1);
  const numbered = lines.flatMap((row, i) => (isBlank(row) ? [] : [{ row, line: i + 1 }]));
  const rows = numbered.map(({ row }) => row);
  if (rows.length === 0) return refuse('The list has a heading row but no rows under it to check.');
  if (rows.length > MAX_LIST_ROWS) {
    return refuse(
      `The list has ${count(rows.length)} rows; at most ${count(MAX_LIST_ROWS)} can be checked at once. Split it into lists of ${count(MAX_LIST_ROWS)} rows or fewer.`,
    );
  }
  // A row shorter than the headings (a spreadsheet drops empty cells at the end) is filled, so every row has every column.
  const width = Math.max(headers.length, ...rows.map((row) => row.length));
  const pad = (row: string[]) => (row.length < width ? [...row, ...Array<string>(width - row.length).fill('')] : row);
  return {
    ok: true,
    table: {
      headers: pad(headers).map((h, i) => h || `Column ${i + 1}`),
      rows: rows.map(pad),
      lines: numbered.map(({ line }) => line),
    },
    blankLines: lines.length - rows.length,
  };
}

const EMPTY = 'The list is empty: paste the rows with their heading row, or choose a file.';

const NOT_TEXT =
  'This file is not a CSV or text file (a spreadsheet workbook, perhaps). In your spreadsheet or practice software, save or export the list as CSV, then choose that file.';

const TEXT_NAME = /\.(csv|tsv|txt)$/i;
const TEXT_TYPE = /^(text\/|application\/(csv|vnd\.ms-excel)$)|^$/;

/** Why a chosen file cannot be a list (not CSV or text, too large), before reading it; null when it may be one. */
export function fileProblem(file: { name: string; type: string; size: number }): string | null {
  if (!TEXT_NAME.test(file.name) || !TEXT_TYPE.test(file.type)) return NOT_TEXT;
  if (file.size > MAX_LIST_BYTES) {
    return `This file is ${count(Math.ceil(file.size / (1024 * 1024)))} MB: far larger than a list of ${count(MAX_LIST_ROWS)} rows. Export fewer rows or fewer columns.`;
  }
  return null;
}
