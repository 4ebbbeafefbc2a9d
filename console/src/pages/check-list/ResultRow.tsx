import { memo, type Ref } from 'react';
import { displayDate } from '../../../../ui/common/display-dates';
import { coveredLgas } from '../../../../shared/eligibility/lga-coverage';
import type { CheckData } from '../../../../shared/api/check';
import type { RowOutcome } from './list-model';
import { STATE_WORDS } from './list-words';
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

interface ResultRowProps {
  /** The row's place in the list, and in the table as filtered and sorted (both 0-based). */
  index: number;
  position: number;
  cells: readonly string[];
  outcome: RowOutcome;
  /** The list's instrument notes (instrumentNotes), which a disaster in force points at by number. */
  notes: readonly string[];
  measure: Ref<HTMLTableRowElement>;
}

/** One row of the list beside its result: the state in words with its marker, the council areas, the disasters. */
export const ResultRow = memo(function ResultRow({ index, position, cells, outcome, notes, measure }: ResultRowProps) {
  const { state, reason, note, question, answer } = outcome;
  const words = STATE_WORDS[state];
  const judged = answer ? (question?.date ? `on ${displayDate(question.date)}` : 'today') : '—';
  return (
    // aria-rowindex counts from the heading row (1), so a screen reader says where a row is among all that are shown.
    <tr ref={measure} data-index={position} aria-rowindex={position + 2} data-state={state} className="list-row">
      <th scope="row">{index + 1}</th>
      <td>
        <span className={`list-state list-state-${state}`}>
          <span className="list-marker" aria-hidden="true">
            {words.marker}
          </span>{' '}
          {words.label}
        </span>
        {reason && <span className="list-reason">{reason}</span>}
        {note && <span className="list-note">{note}</span>}
      </td>
      <td>{answer ? councilAreas(answer, state === 'some') : '—'}</td>
      <td>{answer ? <Disasters answer={answer} notes={notes} /> : '—'}</td>
      <td>{judged}</td>
      {cells.map((cell, i) => (
        <td key={i}>{cell}</td>
      ))}
    </tr>
  );
});
