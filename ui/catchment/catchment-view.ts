import { coveredLgaNames, type CatchmentColor, type ClientCatchmentPostcode } from '../../shared/api/catchment';
import type { Coverage } from '../../shared/api/check';
import { joinNames } from '../../shared/eligibility/texts';

/** The words of a catchment postcode's colour, as the badge says them: colour is never the only signal. */
export const COLOR_WORDS: Record<CatchmentColor, string> = {
  green: 'Eligible',
  amber: 'Eligible (long-running)',
  red: 'Not eligible',
  unknown: 'Unknown',
};

/**
 * A row's coverage: the server's, or, from a server that does not send it, what it meant by eligible (it could not
 * tell a partly covered postcode apart, as answerCoverage takes an answer without LGAs per declaration).
 */
export function rowCoverage(row: Pick<ClientCatchmentPostcode, 'coverage' | 'is_eligible'>): Coverage {
  return row.coverage ?? (row.is_eligible ? 'all' : 'none');
}

/**
 * What a row's status shows: its colour, or `partial` for a postcode the declarations cover only in some of its
 * council areas — eligible, but not for every patient living there, so never shown as a plain (green) yes.
 */
export type RowState = CatchmentColor | 'partial';

export function rowState(row: Pick<ClientCatchmentPostcode, 'status_color' | 'coverage' | 'is_eligible'>): RowState {
  return rowCoverage(row) === 'some' ? 'partial' : row.status_color;
}

/** The status cell's words: "Partly covered — check council area: Brisbane covered, Moreton Bay not" for `some`. */
export function statusWords(row: ClientCatchmentPostcode): string {
  if (rowState(row) !== 'partial') return COLOR_WORDS[row.status_color];
  const { covered, uncovered } = coveredLgaNames(row);
  const which =
    covered.length > 0 && uncovered.length > 0 ? `: ${joinNames(covered)} covered, ${joinNames(uncovered)} not` : '';
  return `Partly covered — check council area${which}`;
}

/** The LGA cell: every LGA the postcode lies in, the principal one first; a dash when none is known. */
export function lgaWords(row: Pick<ClientCatchmentPostcode, 'lga_name' | 'lgas'>): string {
  const names = [row.lga_name, ...row.lgas.map((l) => l.lga_name)].filter((name) => name !== '');
  const distinct = [...new Set(names)];
  return distinct.length === 0 ? '—' : distinct.join(', ');
}

/** The rows in ascending postcode order (the server sends them so; a copy is sorted in case it did not). */
export function sortedRows<T extends Pick<ClientCatchmentPostcode, 'postcode'>>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => (a.postcode < b.postcode ? -1 : a.postcode > b.postcode ? 1 : 0));
}

/**
 * "4 postcodes: 1 eligible, 1 partly covered, 1 eligible (long-running), 1 not eligible, 0 unknown": a partly covered
 * postcode is counted apart, never among the eligible ones, whatever its colour.
 */
export function summaryWords(rows: readonly ClientCatchmentPostcode[]): string {
  const counts: Record<RowState, number> = { green: 0, partial: 0, amber: 0, red: 0, unknown: 0 };
  for (const row of rows) counts[rowState(row)]++;
  const total = rows.length;
  return (
    `${total} postcode${total === 1 ? '' : 's'}: ${counts.green} eligible, ${counts.partial} partly covered, ` +
    `${counts.amber} eligible (long-running), ${counts.red} not eligible, ${counts.unknown} unknown`
  );
}

/** The download's file name: `catchment-YYYY-MM-DD.csv`, today's local date. */
export function csvFileName(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `catchment-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.csv`;
}
