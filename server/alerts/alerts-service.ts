import type { Alert } from '../../shared/api/alerts';
import { sydneyToday } from '../../shared/domain/dates';
import type { CatchmentStore } from '../catchment/catchment-store';
import { pruneAlerts, type CatchmentsFile, type PostcodeState, type StoredAlert } from '../catchment/catchment-records';
import { postcodeStatus, type StatusSources } from '../catchment/postcode-status';
import type { Logger } from '../logger';
import { alertText, diffPostcodeState, sameState } from './alert-diff';
import { AlertEvents, type AlertBatch, type AlertsListener } from './alert-events';

export type { AlertBatch, AlertsListener } from './alert-events';

export interface AlertsServiceDeps {
  store: CatchmentStore;
  /** The data a refresh changes: postcodes → LGAs and the declarations (DeclarationRepository). */
  sources: StatusSources & {
    declarations: StatusSources['declarations'] & { readonly lastUpdated: string | null };
    /** Declaration titles by AGRN (ended declarations stay in the data, so every AGRN of a baseline has one). */
    titleOf(agrn: string): string;
  };
  clock: () => Date;
  logger: Pick<Logger, 'error' | 'info'>;
  /** Tells of every change of the declarations (the declaration store): each may be a refresh to process. */
  refreshes?: { onChange(listener: () => void): () => void };
}

const publicAlert = ({ subscription_id: _, ...alert }: StoredAlert): Alert => alert;

/** Whether refresh time `a` is later than `b` (ISO instants). */
const later = (a: string, b: string | null) => b === null || Date.parse(a) > Date.parse(b);

/**
 * Alerts: after each successful refresh, every catchment postcode's state is compared with its baseline (its state
 * at the previous processed refresh) and the changes are recorded as alerts.
 *
 * `processRefresh` is idempotent: inside one update of the catchment document it compares the document's
 * `processed_refresh` with the declarations' `last_updated`, and only when the declarations are newer does it diff
 * every catchment, append the alerts, move the baselines and the marker. The update is serialised across processes
 * (JsonStore's lock, PostgreSQL's data_version row lock), so however many instances notice a refresh, its alerts are
 * recorded once, and announced (`onAlerts`) once, by the instance that recorded them. A failed or refused refresh
 * does not change `last_updated`, so it produces nothing.
 */
export class AlertsService {
  private readonly events: AlertEvents;
  private running: Promise<void> | null = null;
  private again = false;
  private stopListening: (() => void) | null = null;

  constructor(private readonly deps: AlertsServiceDeps) {
    this.events = new AlertEvents((err) => deps.logger.error({ err }, 'an alerts listener failed'));
  }

  /**
   * Calls `listener` with each committed batch of new alerts (one entry per subscription that got any). Stable
   * interface: the webhook delivery subscribes here. Returns a function that unsubscribes.
   */
  onAlerts(listener: AlertsListener): () => void {
    return this.events.onAlerts(listener);
  }

  /** The subscription's alerts with an id greater than `since` (all kept when absent), oldest first. */
  list(subscriptionId: string, since?: string): Alert[] {
    const after = since === undefined ? 0n : BigInt(since);
    return this.deps.store.current.alerts
      .filter((a) => a.subscription_id === subscriptionId && BigInt(a.id) > after)
      .map(publicAlert);
  }

  /**
   * Processes the current refresh (soon, and once even if asked many times meanwhile): what the declarations' change
   * listener, the start-up and the server's own refresh call. Errors are logged. `settled()` waits for it.
   */
  schedule(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.processRefresh();
        } catch (err) {
          this.deps.logger.error(
            { err },
            'could not process the refresh into catchment alerts (retried on the next change)',
          );
        }
      } while (this.again);
    })().finally(() => (this.running = null));
  }

  /**
   * Processes a refresh whenever the declarations change — the server's own refresh, `npm run ingest` or another
   * instance's (picked up by the declaration store's watch) — and once now; processing is idempotent. stop() ends it.
   */
  start(): void {
    if (this.stopListening || !this.deps.refreshes) return;
    this.stopListening = this.deps.refreshes.onChange(() => this.schedule());
    this.schedule();
  }

  /** Stops following the declarations and waits for the processing under way. */
  async stop(): Promise<void> {
    this.stopListening?.();
    this.stopListening = null;
    await this.settled();
  }

  /** Resolves once no processing scheduled so far is running. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Diffs every catchment against the current data if it is a refresh not processed yet; returns the new alerts. */
  async processRefresh(): Promise<AlertBatch[]> {
    const { store, sources, clock } = this.deps;
    const refresh = sources.declarations.lastUpdated;
    if (refresh === null || !later(refresh, store.current.processed_refresh)) return [];
    const batches = await store.update((draft) => {
      // Checked again under the document's lock: another process may have processed it meanwhile.
      if (!later(refresh, draft.processed_refresh)) return [];
      const now = clock();
      const created = this.diffAll(draft, now);
      draft.processed_refresh = refresh;
      pruneAlerts(draft, now);
      return created;
    });
    if (batches.length > 0) {
      const count = batches.reduce((n, b) => n + b.alerts.length, 0);
      this.deps.logger.info({ alerts: count, subscriptions: batches.length, refresh }, 'catchment alerts recorded');
    }
    this.events.emit(batches);
    return batches;
  }

  /**
   * Each postcode of any catchment is evaluated once; its state is compared once with the state kept from the last
   * processed refresh; only the catchments holding a changed postcode get alerts (not for their `pending` ones, whose
   * refresh this is the baseline of). The kept states become the new ones, for the postcodes still in a catchment.
   */
  private diffAll(draft: CatchmentsFile, now: Date): AlertBatch[] {
    const { sources } = this.deps;
    const day = sydneyToday(now);
    const createdAt = now.toISOString();
    const held = new Set<string>();
    for (const catchment of draft.catchments) for (const postcode of catchment.postcodes) held.add(postcode);

    const states: Record<string, PostcodeState> = {};
    const changed = new Map<string, { before: PostcodeState; lgaName: string; state: PostcodeState }>();
    for (const postcode of [...held].sort()) {
      const row = postcodeStatus(sources, postcode, day);
      const state: PostcodeState = { is_eligible: row.is_eligible, active_agrns: row.active_agrns };
      const before = draft.states[postcode];
      // Unchanged states keep their object, so an unchanged document is written as it was.
      states[postcode] = before && sameState(before, state) ? before : state;
      if (before && !sameState(before, state)) changed.set(postcode, { before, lgaName: row.lga_name, state });
    }

    const batches: AlertBatch[] = [];
    for (const catchment of draft.catchments) {
      const alerts: StoredAlert[] = [];
      if (changed.size > 0) {
        const pending = new Set(catchment.pending);
        for (const postcode of catchment.postcodes) {
          const change = changed.get(postcode);
          // A postcode saved since the last processed refresh: this refresh is its baseline, silently.
          if (!change || pending.has(postcode)) continue;
          for (const { kind, agrn } of diffPostcodeState(change.before, change.state)) {
            const title = sources.titleOf(agrn);
            alerts.push({
              id: String(draft.next_alert_id++),
              created_at: createdAt,
              kind,
              postcode,
              lga_name: change.lgaName,
              agrn,
              title,
              text: alertText(kind, postcode, change.lgaName, agrn, title),
              subscription_id: catchment.subscription_id,
            });
          }
        }
      }
      if (catchment.pending.length > 0) catchment.pending = [];
      if (alerts.length > 0) {
        draft.alerts.push(...alerts);
        batches.push({ subscription_id: catchment.subscription_id, alerts: alerts.map(publicAlert) });
      }
    }
    draft.states = states;
    return batches;
  }
}
