import { addDays, sydneyToday } from '../../shared/domain/dates';
import { USAGE_RETENTION_DAYS, type UsageCounts, type UsageData, type UsageDay } from '../../shared/api/usage';
import type { Logger } from '../logger';
import type { UsageIncrement, UsageKind, UsageRepository } from './usage-repository';

const zero = (): UsageCounts => ({ answered: 0, refused: 0, rate_limited: 0, batch_rows: 0 });

/** Every day from `from` to `to`, oldest first, with nothing counted. */
function emptyDays(from: string, to: string): UsageDay[] {
  const days: UsageDay[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) days.push({ date: d, ...zero(), keys: [] });
  return days;
}

function addTo(total: UsageCounts, counts: UsageCounts): void {
  total.answered += counts.answered;
  total.refused += counts.refused;
  total.rate_limited += counts.rate_limited;
  total.batch_rows += counts.batch_rows;
}

/**
 * How an API key's requests ended, per key and Sydney day. Counting is a Map increment on the request's path; the
 * counts are added to the repository every few seconds and at stop (`flush`), so a check costs no extra round trip
 * and the sums stay exact across instances. A crash loses at most the last interval's counts.
 */
export class UsageService {
  private pending = new Map<string, UsageIncrement>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repository: UsageRepository,
    private readonly clock: () => Date,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  /** Counts one request of key `keyId` (of `subscriptionId`) that ended as `kind`. */
  count(subscriptionId: string, keyId: string, kind: Exclude<UsageKind, 'batch_rows'>, now: Date = this.clock()): void {
    this.pendingRow(subscriptionId, keyId, now)[kind]++;
  }

  /** Counts `rows` rows checked in one batch by `keyId`, apart from the batch's request itself. */
  countRows(subscriptionId: string, keyId: string, rows: number, now: Date = this.clock()): void {
    this.pendingRow(subscriptionId, keyId, now).batch_rows += rows;
  }

  private pendingRow(subscriptionId: string, keyId: string, now: Date): UsageIncrement {
    const day = sydneyToday(now);
    const id = `${keyId} ${day}`;
    let row = this.pending.get(id);
    if (!row) {
      row = { subscription_id: subscriptionId, key_id: keyId, day, ...zero() };
      this.pending.set(id, row);
    }
    return row;
  }

  /** Adds what was counted since the last flush to the repository; what a failed write held is kept for the next. */
  flush(): Promise<void> {
    const run = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = [...this.pending.values()];
      this.pending = new Map();
      try {
        await this.repository.add(batch);
      } catch (err) {
        for (const row of batch) this.merge(row);
        throw err;
      }
    });
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /** Drops the days past retention. */
  purge(now: Date = this.clock()): Promise<void> {
    return this.repository.purgeBefore(addDays(sydneyToday(now), -(USAGE_RETENTION_DAYS - 1)));
  }

  /**
   * The subscription's last `days` days (today included), every day listed, each with its keys' counts; what this
   * process counted but has not flushed yet is included, so a check shows at once where it was made.
   */
  async view(subscriptionId: string | null, days: number, prefixOf: (keyId: string) => string): Promise<UsageData> {
    const to = sydneyToday(this.clock());
    const from = addDays(to, -(days - 1));
    // An organisation without a subscription has counted nothing: every day zero.
    if (subscriptionId === null) return { from, to, totals: zero(), days: emptyDays(from, to) };
    const rows = await this.repository.read(subscriptionId, from, to);
    for (const row of this.pending.values()) {
      if (row.subscription_id === subscriptionId && row.day >= from && row.day <= to) rows.push({ ...row });
    }
    const byDay = new Map(emptyDays(from, to).map((d) => [d.date, d]));
    const totals = zero();
    for (const row of rows) {
      const day = byDay.get(row.day)!;
      addTo(day, row);
      addTo(totals, row);
      const prefix = prefixOf(row.key_id);
      let key = day.keys.find((k) => k.key_prefix === prefix);
      if (!key) day.keys.push((key = { key_prefix: prefix, ...zero() }));
      addTo(key, row);
    }
    return { from, to, totals, days: [...byDay.values()] };
  }

  private merge(row: UsageIncrement): void {
    const id = `${row.key_id} ${row.day}`;
    const held = this.pending.get(id);
    if (held) addTo(held, row);
    else this.pending.set(id, { ...row });
  }

  /** Flushes what is pending (a stop). */
  async close(): Promise<void> {
    await this.flush().catch((err: unknown) => this.logger.error({ err }, 'could not record the last check usage'));
  }
}
