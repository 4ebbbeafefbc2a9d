import { MAX_CATCHMENT_POSTCODES } from '../../shared/api/catchment';
import { isAustralianPostcode } from '../../shared/api/postcode';

/** What a pasted list or a chosen file holds, before it is sent. */
export interface PostcodeList {
  /** Every entry read, in order, quotes and surrounding spaces removed (repeats kept): what the textarea shows. */
  entries: string[];
  /** The distinct valid postcodes, in the order first seen: what Save sends. */
  postcodes: string[];
  /** The distinct entries that are not Australian postcodes (4 digits in 0200–0299 or 0800–9999), in order. */
  invalid: string[];
  /** More distinct postcodes than a catchment may hold. */
  tooMany: boolean;
}

/** Headers naming the postcode column of a CSV (compared lower-case, spaces and underscores ignored). */
const POSTCODE_HEADERS: ReadonlySet<string> = new Set(['postcode', 'postcodes', 'pcode', 'postalcode', 'zip']);

/** Separators between entries of a plain list: commas, semicolons, tabs, spaces and line breaks. */
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

/** The postcode column's entries, when the first line is a CSV header naming one; null otherwise. */
function postcodeColumn(lines: string[]): string[] | null {
  const header = lines[0];
  if (header === undefined) return null;
  const delimiter = delimiterOf(header);
  const column = splitCsvLine(header, delimiter).findIndex((cell) => POSTCODE_HEADERS.has(headerName(unquote(cell))));
  if (column < 0) return null;
  return lines.slice(1).map((line) => unquote(splitCsvLine(line, delimiter)[column] ?? ''));
}

/**
 * Reads postcodes the way a practice has them: typed or pasted one per line or separated by commas, semicolons or
 * spaces; or a CSV file (a spreadsheet's export) whose header row has a column named "postcode" — then only that
 * column is read. Quotes are ignored. A first line without a single digit is a header ("Postcodes") and skipped.
 * Empty entries are skipped; repeats count once.
 */
export function parsePostcodeList(text: string): PostcodeList {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .filter((line) => line.trim() !== '');
  let raw = postcodeColumn(lines);
  if (raw === null) {
    const body = lines.length > 0 && !/[0-9]/.test(lines[0]!) ? lines.slice(1) : lines;
    raw = body.flatMap((line) => line.split(LIST_SEPARATORS).map(unquote));
  }
  const entries = raw.filter((entry) => entry !== '').map(normalise);
  const valid = new Set<string>();
  const invalid = new Set<string>();
  for (const entry of entries) (isAustralianPostcode(entry) ? valid : invalid).add(entry);
  return {
    entries,
    postcodes: [...valid],
    invalid: [...invalid],
    tooMany: valid.size > MAX_CATCHMENT_POSTCODES,
  };
}
