import type { UsageCounts, UsageData, UsageDay } from '../../../../shared/api/usage';
import { displayDate } from '../../../../ui/common/display-dates';
import { TableScroll } from '../../../../ui/common/TableScroll';
import { COUNT_KINDS, countWords, keyTotals, KIND_WORDS, ROWS_HEADING, usageWords } from './usage-chart';

function CountHeadings({ first, last }: { first: string; last?: string }) {
  return (
    <thead>
      <tr>
        <th scope="col">{first}</th>
        {COUNT_KINDS.map((kind) => (
          <th key={kind} scope="col">
            {KIND_WORDS[kind]}
          </th>
        ))}
        <th scope="col">{ROWS_HEADING}</th>
        {last && <th scope="col">{last}</th>}
      </tr>
    </thead>
  );
}

/** The period's counts per key: each key the organisation used (a rotated key keeps its row) and the checks by hand. */
export function KeysTable({ usage, days }: { usage: UsageData; days: number }) {
  const keys = keyTotals(usage.days);
  if (keys.length === 0) return <p data-testid="usage-keys-none">No checks in the last {days} days.</p>;
  return (
    <TableScroll label={`Checks by key, last ${days} days`}>
      <table className="catchment-table usage-table" data-testid="usage-keys">
        <caption>By key, last {days} days</caption>
        <CountHeadings first="Key" />
        <tbody>
          {keys.map((k) => (
            <tr key={k.key_prefix}>
              <th scope="row">{k.key_prefix}</th>
              {COUNT_KINDS.map((kind) => (
                <td key={kind}>{k[kind]}</td>
              ))}
              <td>{k.batch_rows}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** A key's day in words; its list rows only when it checked a list (most keys never do). */
const keyWords = (k: UsageCounts) => (k.batch_rows > 0 ? usageWords(k) : countWords(k));

function DayRow({ day }: { day: UsageDay }) {
  return (
    <tr>
      <th scope="row">
        <time dateTime={day.date}>{displayDate(day.date)}</time>
      </th>
      {COUNT_KINDS.map((kind) => (
        <td key={kind}>{day[kind]}</td>
      ))}
      <td>{day.batch_rows}</td>
      <td>{day.keys.length === 0 ? '—' : day.keys.map((k) => `${k.key_prefix}: ${keyWords(k)}`).join('; ')}</td>
    </tr>
  );
}

/** The chart's figures as text: every day of the period, newest first, with its keys. */
export function DaysTable({ usage }: { usage: UsageData }) {
  return (
    <details className="usage-days">
      <summary>Checks per day (table)</summary>
      <TableScroll label="Checks per day">
        <table className="catchment-table usage-table" data-testid="usage-days">
          <caption>Checks per day, newest first</caption>
          <CountHeadings first="Day" last="By key" />
          <tbody>
            {[...usage.days].reverse().map((day) => (
              <DayRow key={day.date} day={day} />
            ))}
          </tbody>
        </table>
      </TableScroll>
    </details>
  );
}
