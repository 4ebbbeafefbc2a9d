import { CATCHMENT_CSV_COLUMNS, type CatchmentPostcode } from '../../shared/api/catchment';
import type { LgaRef } from '../../shared/domain/lga';

/**
 * A cell a spreadsheet would not run: text starting with =, +, -, @ (or a tab or carriage return, which some
 * spreadsheets skip before looking) gets a leading apostrophe, so an LGA name can never become a formula.
 */
function safeCell(value: string): string {
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** LGAs as one cell: `Lismore (14850); Richmond Valley (16350)`. */
const lgaList = (lgas: readonly LgaRef[]): string =>
  lgas.map((l) => (l.lga_code ? `${l.lga_name} (${l.lga_code})` : l.lga_name)).join('; ');

function cells(row: CatchmentPostcode): string[] {
  return [
    row.postcode,
    row.status_color,
    String(row.is_eligible),
    row.lga_name,
    row.lga_code,
    lgaList(row.lgas),
    row.active_agrns.join('; '),
    row.coverage,
    lgaList(row.covered_lgas),
  ];
}

/** The catchment as CSV (RFC 4180: CRLF line ends, a header row of CATCHMENT_CSV_COLUMNS, one row per postcode). */
export function catchmentCsv(rows: readonly CatchmentPostcode[]): string {
  const lines = [CATCHMENT_CSV_COLUMNS.join(',')];
  for (const row of rows) lines.push(cells(row).map(safeCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
