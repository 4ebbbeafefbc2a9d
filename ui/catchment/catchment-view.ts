import type { CatchmentColor, CatchmentPostcode, CatchmentSummary } from '../../shared/api/catchment';

/** The words of a catchment postcode's colour, as the badge says them: colour is never the only signal. */
export const COLOR_WORDS: Record<CatchmentColor, string> = {
  green: 'Eligible',
  amber: 'Eligible (long-running)',
  red: 'Not eligible',
  unknown: 'Unknown',
};

/** The LGA cell: every LGA the postcode lies in, the principal one first; a dash when none is known. */
export function lgaWords(row: Pick<CatchmentPostcode, 'lga_name' | 'lgas'>): string {
  const names = [row.lga_name, ...row.lgas.map((l) => l.lga_name)].filter((name) => name !== '');
  const distinct = [...new Set(names)];
  return distinct.length === 0 ? '—' : distinct.join(', ');
}

/** The rows in ascending postcode order (the server sends them so; a copy is sorted in case it did not). */
export function sortedRows(rows: readonly CatchmentPostcode[]): CatchmentPostcode[] {
  return [...rows].sort((a, b) => (a.postcode < b.postcode ? -1 : a.postcode > b.postcode ? 1 : 0));
}

/** "3 postcodes: 1 eligible, 1 eligible (long-running), 1 not eligible, 0 unknown". */
export function summaryWords(summary: CatchmentSummary): string {
  const total = summary.green + summary.amber + summary.red + summary.unknown;
  return (
    `${total} postcode${total === 1 ? '' : 's'}: ${summary.green} eligible, ${summary.amber} eligible ` +
    `(long-running), ${summary.red} not eligible, ${summary.unknown} unknown`
  );
}

/** The download's file name: `catchment-YYYY-MM-DD.csv`, today's local date. */
export function csvFileName(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `catchment-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.csv`;
}
