import type { UsageData } from '../../shared/api/usage';

/**
 * Usage as CSV, one row per day and key (a day without use: one row of zeros, no key), for a practice's spreadsheet.
 * Every value is a date, a key prefix (`sk_live_` and 4 letters or digits) or a count: nothing needs quoting.
 */
export function usageCsv(data: UsageData): string {
  const lines = ['date,key_prefix,answered,refused,rate_limited,batch_rows'];
  for (const day of data.days) {
    if (day.keys.length === 0) lines.push(`${day.date},,0,0,0,0`);
    for (const k of day.keys) {
      lines.push(`${day.date},${k.key_prefix},${k.answered},${k.refused},${k.rate_limited},${k.batch_rows}`);
    }
  }
  return lines.join('\r\n') + '\r\n';
}
