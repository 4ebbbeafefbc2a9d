import { useEffect, useState } from 'react';
import type { UsageData } from '../../../../shared/api/usage';
import type { AccountResult } from '../../../../ui/api/account-result';
import { NoticeLine, type Notice } from '../../../../ui/common/NoticeLine';
import { saveFile } from '../../../../ui/common/save-file';
import { usageApi } from './usage-api';
import { useConsoleApi } from '../../use-load';
import { UsageChart } from './UsageChart';
import { USAGE_PERIODS, usageWords, type UsagePeriod } from './usage-chart';
import { DaysTable, KeysTable } from './UsageTables';
import './usage.css';

const consoleFetch = (input: string, init?: RequestInit) => fetch(input, init);

/** The usage of the last `days` days; null while it is read. A period left before its answer arrives ignores it. */
function useUsage(days: UsagePeriod): AccountResult<UsageData> | null {
  const [read, setRead] = useState<{ days: number; result: AccountResult<UsageData> } | null>(null);
  useEffect(() => {
    let live = true;
    void usageApi.read(consoleFetch, days).then((result) => live && setRead({ days, result }));
    return () => {
      live = false;
    };
  }, [days]);
  return read?.days === days ? read.result : null;
}

/** The server's CSV of the period, saved as a file. */
function useDownload(days: UsagePeriod, usage: UsageData | null) {
  const api = useConsoleApi();
  const [notice, setNotice] = useState<Notice>(null);
  const download = async () => {
    setNotice(null);
    const csv = await usageApi.csv(consoleFetch, days);
    if (!csv.ok) {
      setNotice({ kind: 'error', text: `Could not download the usage: ${api.describe(csv)}` });
      return;
    }
    // The server's own name for it (its Content-Disposition), from the range the page shows.
    const name = usage ? `usage-${usage.from}-${usage.to}.csv` : `usage-last-${days}-days.csv`;
    saveFile(csv.data, name, 'text/csv');
    setNotice({ kind: 'ok', text: `Saved ${name}.` });
  };
  return { notice, download };
}

/** The organisation's checks per day and key (every key's and the console's checks by hand), with its CSV. */
export function UsageSection() {
  const api = useConsoleApi();
  const [days, setDays] = useState<UsagePeriod>(30);
  const result = useUsage(days);
  const usage = result?.ok ? result.data : null;
  const { notice, download } = useDownload(days, usage);
  return (
    <section aria-labelledby="usage-heading" data-slot="usage">
      <h2 id="usage-heading">Usage</h2>
      <p className="hint">
        Checks made with your practice&apos;s API key (the extension, your practice software, an AI assistant) and by
        hand in this console, per day (Sydney time): answered; not answered (such as a mistyped postcode, or a key that
        no longer works); and over the limit (more checks in a minute than your plan allows). A list (Check a list, or
        your practice software sending one) is checked up to 500 rows at a time, each time one check among these; its
        rows are counted apart, as list rows checked.
      </p>
      <div className="actions">
        <label htmlFor="usage-days">Period</label>
        <select id="usage-days" value={days} onChange={(e) => setDays(Number(e.target.value) as UsagePeriod)}>
          {USAGE_PERIODS.map((n) => (
            <option key={n} value={n}>
              Last {n} days
            </option>
          ))}
        </select>
        <button type="button" onClick={() => void download()}>
          Download CSV
        </button>
      </div>
      <NoticeLine notice={notice} />
      <p aria-live="polite" data-testid="usage-totals">
        {result === null
          ? 'Loading the usage…'
          : usage
            ? `Last ${days} days: ${usageWords(usage.totals)}.`
            : `Could not load the usage: ${result.ok ? '' : api.describe(result)}`}
      </p>
      {usage && (
        <>
          <UsageChart usage={usage} />
          <KeysTable usage={usage} days={days} />
          <DaysTable usage={usage} />
        </>
      )}
    </section>
  );
}
