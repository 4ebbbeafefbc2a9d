import type { Alert } from '../../shared/api/alerts';
import { coveredLgaNames, type CatchmentPostcode } from '../../shared/api/catchment';
import { sydneyToday } from '../../shared/domain/dates';
import { AlertEvents, type AlertBatch, type AlertsListener, type WantedSubscriptions } from '../catchment/alert-events';
import type { CatchmentRepository, EvaluatedPostcode } from '../catchment/catchment-repository';
import { postcodeStatus, type StatusSources } from '../catchment/postcode-status';
import type { Logger } from '../logger';

export type { AlertBatch, AlertsListener } from '../catchment/alert-events';

export interface AlertsServiceDeps {
  /** Where catchments and alerts are kept (the storage registry's: the JSON document, or PostgreSQL's rows). */
  repository: CatchmentRepository;
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

/** A catchment row as the alerts of its changes see it. */
function evaluated(row: CatchmentPostcode): EvaluatedPostcode {
  return {
    state: { is_eligible: row.is_eligible, active_agrns: row.active_agrns },
    lgaName: row.lga_name,
    coverage: row.coverage,
    ...coveredLgaNames(row),
  };
}

/**
 * Alerts: after each successful refresh, every catchment postcode's state is compared with its baseline (its state
 * at the previous processed refresh) and the changes are recorded as alerts.
 *
 * `processRefresh` is idempotent: the repository compares its processed-refresh marker with the declarations'
 * `last_updated` under its lock (the document's, or the marker row's), and only when the declarations are newer does
 * it diff, append the alerts, move the baselines and the marker, all or nothing. So however many instances notice a
 * refresh, its alerts are recorded once, and announced (`onAlerts`) once, by the instance that recorded them. A failed
 * or refused refresh does not change `last_updated`, so it produces nothing.
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
  onAlerts(listener: AlertsListener, wanted?: WantedSubscriptions): () => void {
    return this.events.onAlerts(listener, wanted);
  }

  /** The subscription's alerts with an id greater than `since` (all kept when absent), oldest first. */
  list(subscriptionId: string, since?: string): Promise<Alert[]> {
    return this.deps.repository.alerts(subscriptionId, since);
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
    const { repository, sources, clock } = this.deps;
    const refresh = sources.declarations.lastUpdated;
    if (refresh === null) return [];
    const now = clock();
    const day = sydneyToday(now);
    const round = await this.events.round();
    const { batches, recorded, subscriptions } = await repository.processRefresh({
      refresh,
      now,
      announce: round.announce,
      evaluate: (postcode) => evaluated(postcodeStatus(sources, postcode, day)),
      titleOf: (agrn) => sources.titleOf(agrn),
    });
    if (recorded > 0) this.deps.logger.info({ alerts: recorded, subscriptions, refresh }, 'catchment alerts recorded');
    round.emit(batches);
    return batches;
  }
}
