import type { DocumentStore } from '../storage/document-store';
import type { UsageFile } from './usage-records';
import type { UsageIncrement, UsageRepository, UsageRow } from './usage-repository';

const rowKey = (r: Pick<UsageRow, 'key_id' | 'day'>) => `${r.key_id} ${r.day}`;

/**
 * DATA_DIR/usage.json: one row per key and day. A single practice's server has a key or two: 400 days of them is a
 * few hundred rows, rewritten at each flush (every few seconds while checks arrive, never when idle).
 */
export class DocumentUsage implements UsageRepository {
  constructor(private readonly store: DocumentStore<UsageFile>) {}

  add(increments: readonly UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return Promise.resolve();
    return this.store.update((draft) => {
      const rows = new Map(draft.rows.map((r) => [rowKey(r), r]));
      for (const inc of increments) {
        const row = rows.get(rowKey(inc));
        if (row) {
          row.answered += inc.answered;
          row.refused += inc.refused;
          row.rate_limited += inc.rate_limited;
          row.batch_rows += inc.batch_rows;
        } else {
          const added = { ...inc };
          draft.rows.push(added);
          rows.set(rowKey(added), added);
        }
      }
    });
  }

  async read(subscriptionId: string, fromDay: string, toDay: string): Promise<UsageRow[]> {
    return this.store.current.rows
      .filter((r) => r.subscription_id === subscriptionId && r.day >= fromDay && r.day <= toDay)
      .map((r) => ({ ...r }));
  }

  async purgeBefore(day: string): Promise<void> {
    if (!this.store.current.rows.some((r) => r.day < day)) return;
    await this.store.update((draft) => {
      draft.rows = draft.rows.filter((r) => r.day >= day);
    });
  }
}
