import { useEffect, useState } from 'react';
import { flushSync } from 'react-dom';
import { NoticeLine, type Notice } from '../../../../ui/common/NoticeLine';
import { saveFile } from '../../../../ui/common/save-file';
import { listCsv, listCsvName } from './list-csv';
import type { ListRun } from './list-model';
import { ListReport } from './ListReport';

const REPORT_ID = 'list-report';

/**
 * The report is made only when first wanted (previewed or printed): a 5,000-row list's report is tens of thousands
 * of elements that a practice that only downloads the CSV never needs. The browser's own Print command (Ctrl+P) makes
 * it too, before the page is laid out for print.
 */
function useReport() {
  const [made, setMade] = useState(false);
  const make = () => flushSync(() => setMade(true));
  useEffect(() => {
    window.addEventListener('beforeprint', make);
    return () => window.removeEventListener('beforeprint', make);
  }, []);
  return { made, make };
}

/**
 * The downloads of a finished run: the list with its results as CSV, and the printable report. Both are made in this
 * browser, so the practice's own columns never reach the server.
 */
export function ListDownloads({ run }: { run: ListRun }) {
  const [notice, setNotice] = useState<Notice>(null);
  const [preview, setPreview] = useState(false);
  const [includeOwnColumns, setIncludeOwnColumns] = useState(false);
  const report = useReport();
  const download = () => {
    const name = listCsvName(run);
    saveFile(listCsv(run), name, 'text/csv;charset=utf-8');
    setNotice({ kind: 'ok', text: `Saved ${name}: your columns and the results, every row.` });
  };
  const print = () => {
    report.make();
    window.print();
  };
  return (
    <section aria-labelledby="list-downloads-heading" className="list-downloads" data-testid="list-downloads">
      <h3 id="list-downloads-heading">Keep the results</h3>
      <p className="hint">
        Made in this browser: your own columns (names, dates of birth, Medicare numbers …) never leave this computer.
        The CSV is your list with the results beside each row; the report, printed or saved as PDF from the print
        window, is a record for a Medicare compliance review.
      </p>
      <div className="actions">
        <button type="button" onClick={download}>
          Download results (CSV)
        </button>
        <button type="button" onClick={print}>
          Print or save as PDF
        </button>
        <button
          type="button"
          aria-expanded={preview}
          aria-controls={report.made ? REPORT_ID : undefined}
          onClick={() => {
            report.make();
            setPreview((shown) => !shown);
          }}
        >
          {preview ? 'Hide the report' : 'Show the report'}
        </button>
      </div>
      <p className="list-downloads-own">
        <input
          type="checkbox"
          id="list-report-own-columns"
          aria-describedby="list-report-own-hint"
          checked={includeOwnColumns}
          onChange={(e) => setIncludeOwnColumns(e.target.checked)}
        />{' '}
        <label htmlFor="list-report-own-columns">Put your own columns in the report too</label>
      </p>
      <p className="hint" id="list-report-own-hint">
        Off unless you tick it: each line of the report gives its row number in your list, so a report you hand on need
        not carry patients&apos; names or Medicare numbers.
      </p>
      <NoticeLine notice={notice} />
      {report.made && <ListReport id={REPORT_ID} run={run} includeOwnColumns={includeOwnColumns} preview={preview} />}
    </section>
  );
}
