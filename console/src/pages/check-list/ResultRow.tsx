import { memo, type Ref } from 'react';
import { displayDate } from '../../../../ui/common/display-dates';
import { coveredLgas } from '../../../../shared/eligibility/lga-coverage';
import type { CheckData } from '../../../../shared/api/check';
import type { RowOutcome } from './list-model';
import { RESULT_HEADINGS, STATE_WORDS } from './list-words';
import { instrumentReference } from './instrument-notes';

/** The council areas of an answer; for a partly covered one, which are covered and which not. */
function councilAreas(answer: CheckData, partly: boolean): string {
  const lgas = answer.location.lgas;
  if (lgas.length === 0) return answer.location.lga_name || 'Not known';
  if (!partly) return lgas.map((l) => l.lga_name).join(', ');
  const covered = new Set(coveredLgas(lgas, answer.disasters));
  return lgas.map((l) => `${l.lga_name} (${covered.has(l) ? 'covered' : 'not covered'})`).join(', ');
}

function Disasters({ answer, notes }: { answer: CheckData; notes: readonly string[] }) {
  if (answer.disasters.length === 0) return <>None</>;
  return (
    <ul className="list-disasters">
      {answer.disasters.map((d) => {
        // Who declared it matters only where it held: beside "Not covered" it reads as a reason to claim.
        const instrument = d.is_active ? instrumentReference(d, notes) : '';
        return (
          <li key={d.agrn}>
            <span className="list-disaster-title">{d.title}</span>
            <br />
            Disaster reference (AGRN) {d.agrn} · {displayDate(d.start_date)} to{' '}
            {d.end_date ? displayDate(d.end_date) : 'no end date yet'}
            {!d.is_active && ' · not in force on the day judged'}
            {instrument && <span className="list-instrument">{instrument}</span>}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * A value's heading, shown beside it only where the row is laid out as a card (a phone: check-list.css); hidden from
 * assistive technology, which names each cell by its column heading.
 */
function CardLabel({ children }: { children: string }) {
  return (
    <span className="list-card-label" aria-hidden="true">
      {children}
    </span>
  );
}

interface ResultRowProps {
  /** The row's number in the list's file (ListTable.lines), and its place in the table as filtered and sorted (0-based). */
  number: number;
  position: number;
  /** The list's own headings, which label the row's own cells in a card. */
  headers: readonly string[];
  cells: readonly string[];
  outcome: RowOutcome;
  /** The list's instrument notes (instrumentNotes), which a disaster in force points at by number. */
  notes: readonly string[];
  measure: Ref<HTMLTableRowElement>;
}

/** One row of the list beside its result: the state in words with its marker, the council areas, the disasters. */
export const ResultRow = memo(function ResultRow({
  number,
  position,
  headers,
  cells,
  outcome,
  notes,
  measure,
}: ResultRowProps) {
  const { state, reason, note, answer, judgedOn } = outcome;
  const words = STATE_WORDS[state];
  // The day the server judged on (the service date, or its today), as the CSV and the report say it: a list checked
  // before midnight and read the next morning still names its day.
  const judged = answer && judgedOn ? displayDate(judgedOn) : '—';
  return (
    // aria-rowindex counts from the heading row (1), so a screen reader says where a row is among all that are shown.
    // The roles are explicit: a phone lays the row out as a card (check-list.css), and a table part that is no longer
    // displayed as one may lose its role.
    <tr
      ref={measure}
      data-index={position}
      aria-rowindex={position + 2}
      data-state={state}
      className="list-row"
      role="row"
    >
      <th scope="row" role="rowheader">
        <CardLabel>{RESULT_HEADINGS.row}</CardLabel> {number}
      </th>
      <td role="cell">
        <span className={`list-state list-state-${state}`}>
          <span className="list-marker" aria-hidden="true">
            {words.marker}
          </span>{' '}
          {words.label}
        </span>
        {reason && <span className="list-reason">{reason}</span>}
        {note && <span className="list-note">{note}</span>}
      </td>
      <td role="cell">
        <CardLabel>{RESULT_HEADINGS.council}</CardLabel>
        {answer ? councilAreas(answer, state === 'some') : '—'}
      </td>
      <td role="cell">
        <CardLabel>{RESULT_HEADINGS.disasters}</CardLabel>
        {answer ? <Disasters answer={answer} notes={notes} /> : '—'}
      </td>
      <td role="cell">
        <CardLabel>{RESULT_HEADINGS.judged}</CardLabel>
        {judged}
      </td>
      {cells.map((cell, i) => (
        <td key={i} role="cell">
          <CardLabel>{headers[i] ?? ''}</CardLabel>
          {cell}
        </td>
      ))}
    </tr>
  );
});
