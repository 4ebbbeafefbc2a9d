import type { BatchItemResult } from '../../../../shared/api/check-batch';
import type { ColumnMapping, ListTable, RowOutcome, RowQuestion, RowState } from './list-model';
import { itemErrorOutcome, STATE_ORDER } from './list-words';
import { monthFirstReason, readRow } from './row-questions';

/** One item's result as the row's outcome: the answer's coverage, or the item's refusal in words. */
export function outcomeOf(result: BatchItemResult, question: RowQuestion, note?: string): RowOutcome {
  const noted = note ? { note } : {};
  if (!result.success) return { ...itemErrorOutcome(result.error.code, question), question, ...noted };
  return {
    state: result.data.summary.coverage,
    question,
    judgedOn: result.checked_date,
    answer: result.data,
    ...noted,
  };
}

/**
 * Every row of the list as it stands before anything is sent: a row that cannot be read is `bad_row` with its
 * reason; every other is `not_checked` with the question it will send (and the note on how it was read).
 */
export function initialOutcomes(table: ListTable, mapping: ColumnMapping, today: string): RowOutcome[] {
  const dateReason = monthFirstReason(table.rows, mapping.date);
  return table.rows.map((row) => {
    const reading = readRow(row, mapping, today, dateReason);
    if (!reading.ok) return { state: 'bad_row', reason: reading.reason };
    return {
      state: 'not_checked',
      question: reading.question,
      ...(reading.note ? { note: reading.note } : {}),
    };
  });
}

/** How many rows are in each state: together, every row of the list. */
export function countStates(outcomes: readonly RowOutcome[]): Record<RowState, number> {
  const counts = Object.fromEntries(STATE_ORDER.map((s) => [s, 0])) as Record<RowState, number>;
  for (const outcome of outcomes) counts[outcome.state]++;
  return counts;
}

/** The earliest and latest day the rows were judged on; null when none was. */
export function runPeriod(outcomes: readonly RowOutcome[]): { from: string; to: string } | null {
  let from: string | null = null;
  let to: string | null = null;
  for (const { judgedOn } of outcomes) {
    if (!judgedOn) continue;
    if (from === null || judgedOn < from) from = judgedOn;
    if (to === null || judgedOn > to) to = judgedOn;
  }
  return from === null || to === null ? null : { from, to };
}

export type SortOrder = 'row' | 'state' | 'postcode' | 'date';

/** The rows' places in the list, in `order`; ties (and rows without a postcode or date, last) keep the list's order. */
export function sortedRows(outcomes: readonly RowOutcome[], order: SortOrder): number[] {
  const places = outcomes.map((_, i) => i);
  if (order === 'row') return places;
  const rank = (o: RowOutcome): string => {
    if (order === 'state') return String(STATE_ORDER.indexOf(o.state));
    if (order === 'postcode') return o.question?.postcode ?? '\uffff';
    return o.judgedOn ?? '\uffff';
  };
  const keys = outcomes.map(rank);
  return places.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
}
