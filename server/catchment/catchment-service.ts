import type { CatchmentData, CatchmentPostcode, CatchmentSummary } from '../../shared/api/catchment';
import { sydneyToday } from '../../shared/domain/dates';
import { pruneAlerts, type CatchmentRecord } from './catchment-records';
import type { CatchmentStore } from './catchment-store';
import { postcodeStatus, type StatusSources } from './postcode-status';

export interface CatchmentServiceDeps {
  store: CatchmentStore;
  sources: StatusSources & {
    declarations: StatusSources['declarations'] & { readonly version: number };
    postcodes: StatusSources['postcodes'] & { readonly version?: number };
  };
  clock: () => Date;
}

/** Catchments computed lately, per subscription: a 5,000-postcode answer is computed once per data version and list. */
const CACHE_ENTRIES = 256;

/**
 * A subscription's catchment: its saved list (replaced whole by `replace`) and its rows computed from the current
 * data (`view`), cached until the declarations, the postcode index, the day or the list change.
 */
export class CatchmentService {
  private readonly cache = new Map<string, { key: string; data: CatchmentData }>();

  constructor(private readonly deps: CatchmentServiceDeps) {}

  /** The document catchments and alerts live in (the bench fills it directly). */
  get store(): CatchmentStore {
    return this.deps.store;
  }

  record(subscriptionId: string): CatchmentRecord | undefined {
    return this.deps.store.current.catchments.find((c) => c.subscription_id === subscriptionId);
  }

  /** The catchment as the API shows it on `day` (today in Sydney by default). */
  view(subscriptionId: string, day: string = sydneyToday(this.deps.clock())): CatchmentData {
    const { sources } = this.deps;
    const record = this.record(subscriptionId);
    const postcodes = record?.postcodes ?? [];
    const key = [
      sources.declarations.version,
      sources.postcodes.version ?? 0,
      day,
      record?.updated_at ?? '',
      postcodes.join(','),
    ].join('|');
    const cached = this.cache.get(subscriptionId);
    if (cached?.key === key) return cached.data;

    const summary: CatchmentSummary = { green: 0, amber: 0, red: 0, unknown: 0 };
    const rows: CatchmentPostcode[] = postcodes.map((postcode) => {
      const row = postcodeStatus(sources, postcode, day);
      summary[row.status_color]++;
      return row;
    });
    const data: CatchmentData = { summary, postcodes: rows, updated_at: record?.updated_at ?? null };
    this.cache.delete(subscriptionId);
    if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(subscriptionId, { key, data });
    return data;
  }

  /**
   * Replaces the subscription's list with `postcodes` (already validated: distinct, known). Postcodes kept keep their
   * baseline; new ones get theirs silently at the next processed refresh (they are `pending` until then).
   */
  async replace(subscriptionId: string, postcodes: readonly string[]): Promise<void> {
    const list = [...new Set(postcodes)].sort();
    const now = this.deps.clock();
    await this.deps.store.update((draft) => {
      const existing = draft.catchments.find((c) => c.subscription_id === subscriptionId);
      const before = new Set(existing?.postcodes ?? []);
      const stillPending = new Set(existing?.pending ?? []);
      const record: CatchmentRecord = {
        subscription_id: subscriptionId,
        postcodes: list,
        updated_at: now.toISOString(),
        pending: list.filter((postcode) => !before.has(postcode) || stillPending.has(postcode)),
      };
      if (existing) Object.assign(existing, record);
      else draft.catchments.push(record);
      pruneAlerts(draft, now);
    });
  }
}
