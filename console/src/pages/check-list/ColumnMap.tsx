import { useLayoutEffect, useMemo, useRef } from 'react';
import { TableScroll } from '../../../../ui/common/TableScroll';
import { displayDate } from '../../../../ui/common/display-dates';
import type { ColumnChoice } from './list-columns';
import type { ListTable } from './list-model';
import { rows as rowWords } from './list-words';
import { monthFirstReason, readRow } from './row-questions';

/** Rows shown under the mapping, with what each would send. */
const PREVIEW_ROWS = 5;

const FIELDS: { field: keyof ColumnChoice; label: string; optional: boolean }[] = [
  { field: 'postcode', label: 'Postcode', optional: false },
  { field: 'suburb', label: 'Suburb', optional: true },
  { field: 'date', label: 'Date of service', optional: true },
];

interface ColumnMapProps {
  table: ListTable;
  blankLines: number;
  choice: ColumnChoice;
  today: string;
  /** Rows that will be sent, and rows that cannot be read (each with its reason in the results). */
  toSend: number;
  unreadable: number;
  onChoice(choice: ColumnChoice): void;
  onCheck(): void;
  onStartAgain(): void;
}

/** What the question of a row sends, in words: "0800, Darwin, 10/03/2025". */
function sentWords(row: readonly string[], choice: ColumnChoice, today: string, dateReason: string | null): string {
  if (choice.postcode === null) return '—';
  const reading = readRow(row, { ...choice, postcode: choice.postcode }, today, dateReason);
  if (!reading.ok) return `Not sent: ${reading.reason}`;
  const { postcode, suburb, date } = reading.question;
  return [postcode, suburb, date && displayDate(date)].filter(Boolean).join(', ');
}

/** The first rows of the list, every column marked as sent (and as what) or staying here, with what each row sends. */
function ListPreview({ table, choice, today }: { table: ListTable; choice: ColumnChoice; today: string }) {
  const preview = useMemo(() => table.rows.slice(0, PREVIEW_ROWS), [table]);
  // The whole column decides how its dates are written, not the rows shown.
  const dateReason = useMemo(() => monthFirstReason(table.rows, choice.date), [table, choice.date]);
  const sentAs = (column: number) => FIELDS.find(({ field }) => choice[field] === column)?.label;
  return (
    <>
      <h3 id="list-preview-heading">The first rows, and what each sends</h3>
      <TableScroll label="The first rows of the list">
        <table className="list-preview" aria-labelledby="list-preview-heading">
          <thead>
            <tr>
              <th scope="col">Sends</th>
              {table.headers.map((header, i) => (
                <th scope="col" key={i} className={sentAs(i) ? 'sent' : undefined}>
                  {header}
                  <span className="list-column-use">
                    {sentAs(i) ? `Sent as ${sentAs(i)!.toLowerCase()}` : 'Stays here'}
                  </span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {preview.map((row, r) => (
              <tr key={r}>
                <td>{sentWords(row, choice, today, dateReason)}</td>
                {row.map((cell, i) => (
                  <td key={i}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}

/**
 * The columns of the list and what each is used for, shown before anything is sent: a select per field (recognised
 * from the headings, changed by hand), which columns leave this computer, a preview of the first rows with what each
 * sends, and the one button that sends.
 */
export function ColumnMap(props: ColumnMapProps) {
  const { table, blankLines, choice, today, toSend, unreadable, onChoice, onCheck, onStartAgain } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), [table]);
  return (
    <section aria-labelledby="list-map-heading">
      <h2 id="list-map-heading" ref={heading} tabIndex={-1}>
        Columns to check
      </h2>
      <p data-testid="list-summary">
        {rowWords(table.rows.length)} in the list.
        {blankLines > 0 &&
          ` ${blankLines.toLocaleString('en-AU')} blank ${blankLines === 1 ? 'line was' : 'lines were'} left out: they are not rows of the list.`}
      </p>
      <div className="list-mapping">
        {FIELDS.map(({ field, label, optional }) => (
          <div className="field" key={field}>
            <label htmlFor={`list-column-${field}`}>{label} column</label>
            <select
              id={`list-column-${field}`}
              value={choice[field] ?? ''}
              onChange={(e) => onChoice({ ...choice, [field]: e.target.value === '' ? null : Number(e.target.value) })}
            >
              <option value="">{optional ? 'None' : 'Choose a column'}</option>
              {table.headers.map((header, i) => (
                <option key={i} value={i}>
                  {header}
                </option>
              ))}
            </select>
          </div>
        ))}
      </div>
      <p className="list-privacy" data-testid="list-privacy">
        Only the postcode, suburb and date columns chosen above leave this computer, to be checked. Every other column —
        names, dates of birth, Medicare numbers, addresses — stays on this computer: it is shown beside the results here
        and in the downloads, and never sent.
      </p>
      <ListPreview table={table} choice={choice} today={today} />
      {choice.postcode === null ? (
        <p className="notice error" role="alert">
          No column is headed as a postcode: choose the postcode column above.
        </p>
      ) : (
        <p data-testid="list-to-send">
          {rowWords(toSend)} to check
          {unreadable > 0 && `; ${rowWords(unreadable)} cannot be read and will be listed with the reason`}.
        </p>
      )}
      <p className="actions">
        <button type="button" onClick={onCheck} aria-disabled={choice.postcode === null ? true : undefined}>
          Check {rowWords(toSend)}
        </button>
        <button type="button" onClick={onStartAgain}>
          Choose another list
        </button>
      </p>
    </section>
  );
}
