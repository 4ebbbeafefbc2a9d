import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { sydneyToday } from '../../../../shared/domain/dates';
import type { Account } from '../../../../ui/account/useAccount';
import { ColumnMap } from './ColumnMap';
import { recogniseColumns, type ColumnChoice } from './list-columns';
import type { ListRun, ListTable } from './list-model';
import { countStates, initialOutcomes, runPeriod } from './list-outcomes';
import { rows as rowWords } from './list-words';
import { ListDownloads } from './ListDownloads';
import { ListInput } from './ListInput';
import { ListProgress } from './ListProgress';
import { ListResults } from './ListResults';
import { useListRun, type Run } from './use-list-run';
import './check-list.css';

interface RunResultsProps {
  table: ListTable;
  run: Run;
  listRun: ListRun | null;
  onAgain(): void;
  onStartAgain(): void;
}

/** A finished run: every row's result (focus on its heading), checking the rows not checked again, the downloads. */
function RunResults({ table, run, listRun, onAgain, onStartAgain }: RunResultsProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), [run]);
  const unchecked = countStates(run.outcomes).not_checked;
  return (
    <section aria-labelledby="list-results-heading" className="list-results-section">
      <h2 id="list-results-heading" ref={heading} tabIndex={-1}>
        Results
      </h2>
      <p data-testid="list-results-summary">
        {rowWords(run.outcomes.length)} in the list, each with its result below.
        {unchecked > 0 && ` ${rowWords(unchecked)} could not be checked: the reason is beside each.`}
      </p>
      <p className="actions">
        {unchecked > 0 && (
          <button type="button" onClick={onAgain}>
            Check the {rowWords(unchecked)} not checked again
          </button>
        )}
        <button type="button" onClick={onStartAgain}>
          Check another list
        </button>
      </p>
      <ListResults table={table} outcomes={run.outcomes} />
      {listRun && <ListDownloads run={listRun} />}
    </section>
  );
}

/**
 * Check a list: a practice's appointment list or a quarter's telehealth claims, read in the browser, its postcode,
 * suburb and date columns (and nothing else) checked in batches, every row ending with a result beside the practice's
 * own columns, for today or for the row's date of service.
 */
export function CheckListPage({ account }: { account: Account }) {
  const [loaded, setLoaded] = useState<{ table: ListTable; blankLines: number; today: string } | null>(null);
  const [choice, setChoice] = useState<ColumnChoice>({ postcode: null, suburb: null, date: null });
  /** A list was put aside for another: the list's input comes back with focus on it. */
  const [another, setAnother] = useState(false);
  const { loadSession } = account;
  const { run, progress, send, cancel, forget } = useListRun(() => void loadSession());
  const mapping = choice.postcode === null ? null : { ...choice, postcode: choice.postcode };
  const planned = useMemo(
    () => (loaded && mapping ? initialOutcomes(loaded.table, mapping, loaded.today) : null),
    // `mapping` is made from `choice` on each render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [loaded, choice],
  );
  const toSend = planned ? planned.filter((o) => o.state === 'not_checked').length : 0;
  const startAgain = () => {
    forget();
    setLoaded(null);
    setAnother(true);
  };
  const listRun: ListRun | null =
    loaded && mapping && run?.finished
      ? {
          table: loaded.table,
          mapping,
          outcomes: run.outcomes,
          organisation: account.membership?.name ?? '',
          ranBy: account.signedInAs ?? '',
          ranAt: run.ranAt!,
          period: runPeriod(run.outcomes),
          metadata: run.metadata,
        }
      : null;

  return (
    <>
      <p className="hint">
        For practice software the browser extension cannot reach: check every row of an exported list at once, for today
        or for each row&apos;s date of service (a claim audit asks what held on the day of the service). Each disaster
        is named with its disaster reference (AGRN), the number the Australian Government gives it under the Disaster
        Recovery Funding Arrangements (DRFA).
      </p>
      {!loaded && (
        <ListInput
          focusHeading={another}
          onRead={({ table, blankLines }) => {
            // The day the rows are read on: a date after it is refused before anything is sent.
            setLoaded({ table, blankLines, today: sydneyToday(new Date()) });
            setChoice(recogniseColumns(table.headers));
          }}
        />
      )}
      {loaded && !run && (
        <ColumnMap
          table={loaded.table}
          blankLines={loaded.blankLines}
          choice={choice}
          today={loaded.today}
          toSend={toSend}
          unreadable={planned ? planned.length - toSend : 0}
          onChoice={setChoice}
          onCheck={() => planned && void send(planned, null)}
          onStartAgain={startAgain}
        />
      )}
      {run && !run.finished && <ListProgress progress={progress} onCancel={cancel} />}
      {loaded && run?.finished && (
        <RunResults
          table={loaded.table}
          run={run}
          listRun={listRun}
          onAgain={() => void send(run.outcomes, run.metadata)}
          onStartAgain={startAgain}
        />
      )}
    </>
  );
}
