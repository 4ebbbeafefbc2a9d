import type { CatchmentData, CatchmentPostcode, CatchmentSummary } from '../../shared/api/catchment';
import { sydneyToday } from '../../shared/domain/dates';
import { isContractError } from '../contract-error';
import type { CatchmentRecord } from './catchment-records';
import type { CatchmentRepository } from './catchment-repository';
import { postcodeStatus, type StatusSources } from './postcode-status';

export interface CatchmentServiceDeps {
  /** Where catchments are kept (the storage registry's: the JSON document, or PostgreSQL's rows). */
  repository: CatchmentRepository;
  sources: StatusSources & {
    declarations: StatusSources['declarations'] & { readonly version: number };
    postcodes: StatusSources['postcodes'] & { readonly version?: number };
  };
  clock: () => Date;
  /** How many computed rows the cache of views may hold in all. Default CACHE_ROWS. */
  cacheRows?: number;
}

/**
 * Rows of the catchments computed lately, in all (a view is computed once per data version, day and list, and the
 * router keeps its encoded answer beside it): bounded by rows rather than catchments, so that memory stays under about
 * 50 MB however large the catchments asked for (measured: 100,000 rows are 30 MB of heap and 18 MB of JSON) — 333
 * catchments of 300 postcodes, or 20 of 5,000. Bounded by count alone, 256 catchments of 5,000 could hold 600 MB.
 */
export const CACHE_ROWS = 100_000;
/** The counts of a catchment without postcodes. */
export const EMPTY_SUMMARY: Readonly<CatchmentSummary> = { green: 0, amber: 0, red: 0, unknown: 0, partly_covered: 0 };

/** Subscriptions whose last-read catchment is kept for answering while the database is out. */
const CACHE_ENTRIES = 256;

/**
 * A subscription's catchment: its saved list (replaced whole by `replace`) and its rows computed from the current
 * data (`view`), cached until the declarations, the postcode index, the day or the list change.
 */
export class CatchmentService {
  private readonly cache = new Map<string, { key: string; data: CatchmentData }>();
  private cachedRows = 0;
  /** The catchments this process last read or wrote, for answering while the database is out. */
  private readonly lastKnown = new Map<string, CatchmentRecord | undefined>();

  constructor(private readonly deps: CatchmentServiceDeps) {}

  /** Where the catchments are kept (the bench and tests fill it directly). */
  get repository(): CatchmentRepository {
    return this.deps.repository;
  }

  record(subscriptionId: string): Promise<CatchmentRecord | undefined> {
    return this.deps.repository.get(subscriptionId);
  }

  /** The catchment as the API shows it on `day` (today in Sydney by default). */
  async view(subscriptionId: string, day: string = sydneyToday(this.deps.clock())): Promise<CatchmentData> {
    const { sources } = this.deps;
    const record = await this.recordOrLastKnown(subscriptionId);
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

    const summary: CatchmentSummary = { ...EMPTY_SUMMARY };
    const rows: CatchmentPostcode[] = postcodes.map((postcode) => {
      const row = postcodeStatus(sources, postcode, day);
      summary[row.status_color]++;
      if (row.coverage === 'some') summary.partly_covered++;
      return row;
    });
    const data: CatchmentData = { summary, postcodes: rows, updated_at: record?.updated_at ?? null };
    this.cacheView(subscriptionId, key, data);
    return data;
  }

  /** Keeps `data` as the subscription's view, dropping the least recently computed views past the row bound. */
  private cacheView(subscriptionId: string, key: string, data: CatchmentData): void {
    this.uncache(subscriptionId);
    const limit = this.deps.cacheRows ?? CACHE_ROWS;
    // A view larger than the whole bound is answered, not kept, and pushes nothing out.
    if (data.postcodes.length > limit) return;
    for (const oldest of this.cache.keys()) {
      if (this.cachedRows + data.postcodes.length <= limit) break;
      this.uncache(oldest);
    }
    this.cache.set(subscriptionId, { key, data });
    this.cachedRows += data.postcodes.length;
  }

  private uncache(subscriptionId: string): void {
    const cached = this.cache.get(subscriptionId);
    if (!cached) return;
    this.cache.delete(subscriptionId);
    this.cachedRows -= cached.data.postcodes.length;
  }

  /**
   * The saved catchment; while the database is out, the one this process last read for the subscription (computed
   * against the current data), as the check answers from memory. Never read here: the outage's 503.
   */
  private async recordOrLastKnown(subscriptionId: string): Promise<CatchmentRecord | undefined> {
    try {
      return this.remember(subscriptionId, await this.record(subscriptionId));
    } catch (err) {
      if (this.lastKnown.has(subscriptionId) && isContractError(err, 'storage_unavailable')) {
        return this.lastKnown.get(subscriptionId);
      }
      throw err;
    }
  }

  private remember(subscriptionId: string, record: CatchmentRecord | undefined): CatchmentRecord | undefined {
    this.lastKnown.delete(subscriptionId);
    if (this.lastKnown.size >= CACHE_ENTRIES) this.lastKnown.delete(this.lastKnown.keys().next().value!);
    this.lastKnown.set(subscriptionId, record);
    return record;
  }

  /**
   * Replaces the subscription's list with `postcodes` (already validated: distinct, known). Postcodes kept keep their
   * baseline; new ones get theirs silently at the next processed refresh (they are `pending` until then).
   */
  async replace(subscriptionId: string, postcodes: readonly string[]): Promise<void> {
    const list = [...new Set(postcodes)].sort();
    const now = this.deps.clock();
    await this.deps.repository.replace(subscriptionId, list, now);
    const before = this.lastKnown.get(subscriptionId);
    const pending = list.filter((p) => !before?.postcodes.includes(p) || before.pending.includes(p));
    this.remember(subscriptionId, {
      subscription_id: subscriptionId,
      postcodes: list,
      updated_at: now.toISOString(),
      pending,
    });
  }
}
