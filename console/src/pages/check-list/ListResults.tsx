import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import type { ListTable, RowOutcome, RowState } from './list-model';
import { rowNumber } from './row-words';
import { countStates, sortedRows, type SortOrder } from './list-outcomes';
import { RESULT_HEADINGS, rows as rowWords, STATE_ORDER, STATE_WORDS } from './list-words';
import { ResultRow } from './ResultRow';
import { instrumentNotes } from './instrument-notes';
import { InstrumentNotes } from './InstrumentNotes';

const SORTS: { value: SortOrder; label: string }[] = [
  { value: 'row', label: 'Row order' },
  { value: 'state', label: 'Result' },
  { value: 'postcode', label: 'Postcode' },
  { value: 'date', label: 'Date judged on' },
];

/**
 * Columns before the practice's own: row, result, council area, disasters, date judged on; widths in em. Together
 * they fit the results box in a desktop window (1280 px), so the day judged on is read without scrolling sideways.
 */
const RESULT_COLUMNS: { name: string; width: number }[] = [
  { name: RESULT_HEADINGS.row, width: 4 },
  { name: RESULT_HEADINGS.result, width: 14 },
  { name: RESULT_HEADINGS.council, width: 11 },
  { name: RESULT_HEADINGS.disasters, width: 18 },
  { name: RESULT_HEADINGS.judged, width: 7 },
];
/** Each of the practice's own columns. */
const OWN_WIDTH = 10;

interface FilterProps {
  outcomes: readonly RowOutcome[];
  filter: RowState | null;
  onFilter(state: RowState | null): void;
}

/** The counts per state, together every row of the list: each a button that shows only those rows. */
function StateCounts({ outcomes, filter, onFilter }: FilterProps) {
  const counts = useMemo(() => countStates(outcomes), [outcomes]);
  const button = (state: RowState | null, label: string, marker: string | null, n: number) => (
    <li key={state ?? 'every'}>
      <button
        type="button"
        aria-pressed={filter === state}
        onClick={() => onFilter(state)}
        data-state={state ?? 'every'}
      >
        {marker && (
          <span className="list-marker" aria-hidden="true">
            {marker}
          </span>
        )}{' '}
        {label}: {n.toLocaleString('en-AU')}
      </button>
    </li>
  );
  return (
    <ul className="list-counts" aria-label="Rows by result (show only these)" data-testid="list-counts">
      {button(null, 'All rows', null, outcomes.length)}
      {STATE_ORDER.filter((s) => counts[s] > 0).map((s) =>
        button(s, STATE_WORDS[s].short, STATE_WORDS[s].marker, counts[s]),
      )}
    </ul>
  );
}

/** A row standing for the rows not drawn, `height` px tall. */
function Spacer({ height, columns }: { height: number; columns: number }) {
  if (height <= 0) return null;
  return (
    <tr aria-hidden="true" className="list-spacer">
      <td colSpan={columns} style={{ height }} />
    </tr>
  );
}

/** The headings row: the result columns, then the practice's own. */
function Headings({ headers }: { headers: readonly string[] }) {
  return (
    <thead role="rowgroup">
      <tr aria-rowindex={1} role="row">
        {RESULT_COLUMNS.map((c) => (
          <th scope="col" role="columnheader" key={c.name}>
            {c.name}
          </th>
        ))}
        {headers.map((h, i) => (
          <th scope="col" role="columnheader" key={i}>
            {h}
          </th>
        ))}
      </tr>
    </thead>
  );
}

interface TableProps {
  table: ListTable;
  outcomes: readonly RowOutcome[];
  notes: readonly string[];
  /** The rows' places in the list, as filtered and sorted. */
  shown: readonly number[];
}

/** The results box's width at or under which its rows are laid out as cards (check-list.css's container query). */
const CARD_WIDTH_PX = 600;

/**
 * The results as a table that draws only the rows in view (5,000 rows scroll smoothly), while telling assistive
 * technology how many rows there are and where each drawn one stands (aria-rowcount, aria-rowindex); spacer rows
 * keep the scroll height of the rows not drawn.
 */
function ResultsTable({ table, outcomes, notes, shown }: TableProps) {
  const scroller = useRef<HTMLDivElement>(null);
  // The console has no React Compiler, so the virtualizer's unmemoisable functions are used as TanStack documents.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    // A row is a line on a wide box and a card on a narrow one (check-list.css): a guess near the truth keeps the
    // scrollbar steady before rows are measured.
    estimateSize: () =>
      (scroller.current?.clientWidth ?? Infinity) <= CARD_WIDTH_PX ? 200 + 32 * table.headers.length : 64,
    overscan: 8,
  });
  // Another filter or order starts at the top: the rows in view before are not the first of the new ones.
  useEffect(() => virtualizer.scrollToOffset(0), [shown, virtualizer]);
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const width = RESULT_COLUMNS.reduce((sum, c) => sum + c.width, 0) + OWN_WIDTH * table.headers.length;
  const spacer = (height: number) => <Spacer height={height} columns={RESULT_COLUMNS.length + table.headers.length} />;
  return (
    <div
      ref={scroller}
      className="list-results-scroll"
      role="region"
      aria-label="Results, one line per row of the list"
      tabIndex={0}
    >
      {/*
        Fixed widths: the rows drawn change as it scrolls, and the columns must not change width with them. A width the
        stylesheet can set aside: on a phone each row is a card as wide as the box (check-list.css), and the roles are
        explicit, since table parts not displayed as such may lose theirs.
      */}
      <table
        className="list-results"
        role="table"
        aria-rowcount={shown.length + 1}
        data-testid="list-results"
        style={{ '--list-results-width': `${width}em` } as CSSProperties}
      >
        <colgroup>
          {RESULT_COLUMNS.map((c) => (
            <col key={c.name} style={{ width: `${c.width}em` }} />
          ))}
          {table.headers.map((_, i) => (
            <col key={i} style={{ width: `${OWN_WIDTH}em` }} />
          ))}
        </colgroup>
        <Headings headers={table.headers} />
        <tbody role="rowgroup">
          {spacer(before)}
          {items.map((item) => {
            const index = shown[item.index]!;
            return (
              <ResultRow
                key={index}
                number={rowNumber(table, index)}
                position={item.index}
                headers={table.headers}
                cells={table.rows[index]!}
                outcome={outcomes[index]!}
                notes={notes}
                measure={virtualizer.measureElement}
              />
            );
          })}
          {spacer(after)}
        </tbody>
      </table>
    </div>
  );
}

/** Every row of the list with its result, beside the practice's own columns: counts that filter, a sort, the table. */
export function ListResults({ table, outcomes }: { table: ListTable; outcomes: readonly RowOutcome[] }) {
  const [filter, setFilter] = useState<RowState | null>(null);
  const [order, setOrder] = useState<SortOrder>('row');
  const notes = useMemo(() => instrumentNotes(outcomes), [outcomes]);
  const sorted = useMemo(() => sortedRows(outcomes, order), [outcomes, order]);
  const shown = useMemo(
    () => (filter === null ? sorted : sorted.filter((i) => outcomes[i]!.state === filter)),
    [sorted, filter, outcomes],
  );
  return (
    <>
      <StateCounts outcomes={outcomes} filter={filter} onFilter={setFilter} />
      <div className="field list-sort">
        <label htmlFor="list-sort">Sort by</label>
        <select id="list-sort" value={order} onChange={(e) => setOrder(e.target.value as SortOrder)}>
          {SORTS.map(({ value, label }) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <p role="status" className="hint" data-testid="list-shown">
        {filter === null
          ? `Showing all ${rowWords(shown.length)}.`
          : `Showing ${rowWords(shown.length)}: ${STATE_WORDS[filter].label.toLowerCase()}.`}
      </p>
      <InstrumentNotes notes={notes} id="list-instrument-notes" level={3} className="list-instrument-notes" />
      <ResultsTable table={table} outcomes={outcomes} notes={notes} shown={shown} />
    </>
  );
}
