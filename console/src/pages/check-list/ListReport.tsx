import { useMemo } from 'react';
import { DRFA_CAVEAT, disclaimers } from '../../../../shared/eligibility/texts';
import { displayInstant } from '../../../../ui/common/display-dates';
import { instrumentNotes } from './instrument-notes';
import { InstrumentNotes } from './InstrumentNotes';
import type { ListRun } from './list-model';
import { periodWords, reportLines, stateCounts, type ReportLine } from './list-report-lines';
import './list-report.css';

/**
 * The rule as published (SOURCES.md §5 and §6): the MBS's own words, then what the list behind the answers is and how
 * it relates to them, since a reviewer judges the claims by the first and the answers come from the second.
 */
function TheRule() {
  return (
    <section className="list-report-part" aria-labelledby="list-report-rule">
      <h4 id="list-report-rule">The rule, as published</h4>
      <p>
        Medicare pays for a GP telehealth service (such as items 91891, 91892 and 91893) only where the patient has an
        established clinical relationship with the practice — a face-to-face service in the last 12 months — unless an
        exemption applies (MBS note AN.1.1). One exemption covers a patient{' '}
        <q>living in a local government area declared a natural disaster by a State or Territory government</q>, at the
        time of the service. It is not a Commonwealth declaration.
      </p>
      <p>
        {DRFA_CAVEAT} The answers below are read from DisasterAssist&apos;s list. In NSW the State&apos;s natural
        disaster declarations{' '}
        <q>are issued by the NSW Government and incorporate an Australian Government reference number (AGRN)</q>, so
        there the disaster reference names the State&apos;s own declaration; elsewhere, confirm the State or
        Territory&apos;s declaration against its official source.
      </p>
      <p>
        A disaster counts from its start date to its end date, or to this day when it has none. DisasterAssist&apos;s
        end date is the end of the event, not necessarily of the declaration.
      </p>
    </section>
  );
}

function TheData({ metadata }: { metadata: ListRun['metadata'] }) {
  return (
    <section className="list-report-part" aria-labelledby="list-report-data">
      <h4 id="list-report-data">The data</h4>
      <dl className="list-report-facts">
        <dt>Disaster declarations</dt>
        <dd data-testid="list-report-source">
          {metadata ? (
            <>
              DisasterAssist ({metadata.data_source}), the Australian Government&apos;s list of disasters and of the
              council areas each covers; last refreshed {displayInstant(metadata.last_updated)}
              {metadata.stale
                ? '. The data was more than 48 hours old when the list was checked: a newer declaration may be missing.'
                : '.'}
            </>
          ) : (
            'DisasterAssist (disasterassist.gov.au). No row was answered, so the time of its last refresh is not known.'
          )}
        </dd>
        <dt>Council areas of each postcode</dt>
        <dd>
          The ABS postcode to council area (LGA) correspondence (population-weighted); for a postcode it does not list,
          postcode locality data.
        </dd>
      </dl>
    </section>
  );
}

function Line({ line }: { line: ReportLine }) {
  return (
    <li data-row={line.row}>
      <p className="list-report-line">
        <strong>Row {line.row}</strong> · Postcode {line.postcode || '(none)'}
        {line.suburb && `, ${line.suburb}`} · {line.verdict}
        {line.councilAreas &&
          (line.state === 'some'
            ? ` — check the patient's council area (LGA): ${line.councilAreas}`
            : ` — council area (LGA): ${line.councilAreas}`)}
      </p>
      {line.disasters.length > 0 && (
        <ul className="list-report-disasters">
          {line.disasters.map((d) => (
            <li key={d.agrn}>
              {d.title}, disaster reference (AGRN) {d.agrn}, {d.period}
              {d.instrument && `. ${d.instrument}`}
            </li>
          ))}
        </ul>
      )}
      {line.reason && <p className="list-report-reason">Reason: {line.reason}</p>}
      {line.note && <p className="list-report-reason">Read as: {line.note}</p>}
      {line.own.length > 0 && (
        <p className="list-report-own">{line.own.map((c) => `${c.heading}: ${c.cell}`).join(' · ')}</p>
      )}
    </li>
  );
}

/**
 * The printable report of a checked list: who, when, on which days, by which rule and data, then one line per row of
 * the list, whatever became of it. Shown on screen as a preview when asked for; in print it is all that prints
 * (list-report.css).
 */
export function ListReport({
  run,
  includeOwnColumns,
  preview,
  id,
}: {
  run: ListRun;
  includeOwnColumns: boolean;
  /** Shown on screen too (it always prints). */
  preview: boolean;
  id: string;
}) {
  const notes = useMemo(() => instrumentNotes(run.outcomes), [run]);
  const lines = useMemo(() => reportLines(run, notes, { includeOwnColumns }), [run, notes, includeOwnColumns]);
  const counts = useMemo(() => stateCounts(run), [run]);
  return (
    <article
      id={id}
      className="list-report"
      data-preview={preview ? 'open' : 'closed'}
      aria-labelledby="list-report-title"
      data-testid="list-report"
    >
      <h3 id="list-report-title">Telehealth disaster exemption: a checked list</h3>
      <dl className="list-report-facts">
        <dt>Organisation</dt>
        <dd>{run.organisation}</dd>
        <dt>Checked by</dt>
        <dd>{run.ranBy}</dd>
        <dt>Checked on</dt>
        <dd>{displayInstant(run.ranAt)}</dd>
        <dt>Period (days judged on)</dt>
        <dd data-testid="list-report-period">{periodWords(run.period)}</dd>
        <dt>Rows</dt>
        <dd>
          {run.table.rows.length}
          <ul className="list-report-counts" data-testid="list-report-counts">
            {counts.map((c) => (
              <li key={c.state}>
                {c.words}: {c.count}
              </li>
            ))}
          </ul>
        </dd>
      </dl>
      <TheRule />
      <InstrumentNotes notes={notes} id="list-report-instrument-notes" level={4} className="list-report-part" />
      <TheData metadata={run.metadata} />
      <section className="list-report-part" aria-labelledby="list-report-rows">
        <h4 id="list-report-rows">Every row</h4>
        <p className="hint">
          Rows are numbered as on the page: row 1 is the first row under your list&apos;s headings. A row with a service
          date says what held on that date.
        </p>
        <ol className="list-report-rows" data-testid="list-report-rows">
          {lines.map((line) => (
            <Line key={line.row} line={line} />
          ))}
        </ol>
      </section>
      <ul className="list-report-disclaimers">
        {disclaimers()
          .filter((d) => d !== DRFA_CAVEAT)
          .map((d) => (
            <li key={d}>{d}</li>
          ))}
      </ul>
    </article>
  );
}
