import { MAX_CATCHMENT_POSTCODES } from '../../shared/api/catchment';
import { isAustralianPostcode } from '../../shared/api/postcode';

/** What a pasted list or a chosen file holds, before it is sent: every entry accounted for. */
export interface PostcodeList {
  /** Every entry read, in order, quotes and surrounding spaces removed (repeats kept): what the textarea shows. */
  entries: string[];
  /** The distinct valid postcodes, in the order first seen: what Save sends. */
  postcodes: string[];
  /**
   * The distinct entries that are not Australian postcodes (4 digits in 0200–0299 or 0800–9999), in order: left out
   * of what Save sends, and named before it.
   */
  invalid: string[];
  /** The entries read more than once, each named once, in order: each is saved once. */
  repeated: string[];
  /** The first line, when it was read as a heading ("Postcodes") rather than as entries. */
  heading: string | null;
  /** The CSV column read (as its header names it), when the first line is a CSV header with a postcode column. */
  column: string | null;
  /** More distinct postcodes than a catchment may hold. */
  tooMany: boolean;
}

/** Headers naming the postcode column of a CSV (compared lower-case, spaces, hyphens and underscores ignored). */
const POSTCODE_HEADERS: ReadonlySet<string> = new Set(['postcode', 'postcodes', 'pcode', 'postalcode', 'zip']);

/** A first line without digits that names postcodes ("Postcodes", "Our postcodes:"): a heading, not entries. */
const HEADING = /post\s*codes?|postal\s*codes?|pcodes?|zip/i;

/** Separators between entries: commas, semicolons, tabs, spaces and line breaks, in a list and in a CSV cell alike. */
const LIST_SEPARATORS = /[\s,;]+/;

function headerName(cell: string): string {
  return cell.toLowerCase().replace(/[\s_-]+/g, '');
}

function unquote(value: string): string {
  return value.replace(/["'\u2018\u2019\u201c\u201d]/g, '').trim();
}

/**
 * One CSV line's cells: `delimiter`-separated, a cell in double quotes may hold the delimiter (`"Lismore, NSW"`) and
 * `""` for a quote. Quotes are dropped.
 */
export function splitCsvLine(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        cell += ch;
      }
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === delimiter) {
      cells.push(cell);
      cell = '';
    } else {
      cell += ch;
    }
  }
  cells.push(cell);
  return cells.map((c) => c.trim());
}

/** The delimiter of a CSV header line: the first comma, semicolon or tab outside quotes (comma when none). */
function delimiterOf(line: string): string {
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === ',' || ch === ';' || ch === '\t')) return ch;
  }
  return ',';
}

/**
 * A spreadsheet drops the leading zero of Northern Territory and ACT postcodes (`800` for 0800): 3 digits are read
 * with it put back. Anything else is kept as written.
 */
function normalise(entry: string): string {
  return /^[0-9]{3}$/.test(entry) ? `0${entry}` : entry;
}

const splitEntries = (text: string): string[] => text.split(LIST_SEPARATORS).map(unquote);

/**
 * The postcode column's cells, when the first line is a CSV header of several columns one of which names postcodes;
 * null otherwise. A header of one cell ("Postcode") is only a heading: the lines under it are a plain list, read with
 * every separator, not cut at the first comma as a one-column CSV would.
 */
function postcodeColumn(lines: string[]): { column: string; cells: string[] } | null {
  const header = lines[0];
  if (header === undefined) return null;
  const delimiter = delimiterOf(header);
  const names = splitCsvLine(header, delimiter).map(unquote);
  const index = names.findIndex((cell) => POSTCODE_HEADERS.has(headerName(cell)));
  if (names.length < 2 || index < 0) return null;
  return { column: names[index]!, cells: lines.slice(1).map((line) => splitCsvLine(line, delimiter)[index] ?? '') };
}

/**
 * Reads postcodes the way a practice has them, with the same rules typed, pasted or from a file: entries separated by
 * commas, semicolons, tabs, spaces or new lines; a first line naming postcodes without a digit ("Postcodes") is a
 * heading; a CSV (a spreadsheet's export) whose header row has a column named "postcode" among others is read by
 * that column only, each cell again by every separator. Quotes are ignored. Nothing is dropped without a word: the
 * heading, the column, the entries that are not postcodes and the repeats are all in the answer.
 */
export function parsePostcodeList(text: string): PostcodeList {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .filter((line) => line.trim() !== '');
  const csv = postcodeColumn(lines);
  const first = lines[0];
  const heading = !csv && first !== undefined && !/[0-9]/.test(first) && HEADING.test(first) ? first.trim() : null;
  const cells = csv ? csv.cells : heading !== null ? lines.slice(1) : lines;
  const entries = cells
    .flatMap(splitEntries)
    .filter((entry) => entry !== '')
    .map(normalise);

  const seen = new Set<string>();
  const repeated = new Set<string>();
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const entry of entries) {
    if (seen.has(entry)) {
      repeated.add(entry);
      continue;
    }
    seen.add(entry);
    (isAustralianPostcode(entry) ? valid : invalid).push(entry);
  }
  return {
    entries,
    postcodes: valid,
    invalid,
    repeated: [...repeated],
    heading,
    column: csv?.column ?? null,
    tooMany: valid.length > MAX_CATCHMENT_POSTCODES,
  };
}
