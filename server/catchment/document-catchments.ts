import type { Alert } from '../../shared/api/alerts';
import type { AlertBatch } from './alert-events';
import { sameState } from './alert-diff';
import { pruneAlerts, type CatchmentRecord, type CatchmentsFile, type PostcodeState } from './catchment-records';
import {
  changeAlerts,
  laterRefresh,
  type CatchmentRepository,
  type EvaluatedPostcode,
  type ProcessedRefresh,
  type RefreshToProcess,
} from './catchment-repository';

const NOTHING: ProcessedRefresh = { batches: [], recorded: 0, subscriptions: 0 };
import type { CatchmentStore } from './catchment-records';

const publicAlert = ({ subscription_id: _, ...alert }: CatchmentsFile['alerts'][number]): Alert => alert;

/**
 * The catchments as one document (DATA_DIR/catchments.json): every read from memory, every write one atomic,
 * locked replacement of the file, processing a refresh included. Its size grows with catchments × postcodes and the
 * alerts kept, and each write rewrites it: the embedded default for a practice's own server (up to about a hundred
 * organisations with a few hundred postcodes each); PostgreSQL's rows are the path past that.
 */
export class DocumentCatchments implements CatchmentRepository {
  constructor(readonly store: CatchmentStore) {}

  async get(subscriptionId: string): Promise<CatchmentRecord | undefined> {
    return this.store.current.catchments.find((c) => c.subscription_id === subscriptionId);
  }

  async replace(subscriptionId: string, postcodes: readonly string[], now: Date): Promise<void> {
    await this.store.update((draft) => {
      const existing = draft.catchments.find((c) => c.subscription_id === subscriptionId);
      const before = new Set(existing?.postcodes ?? []);
      const stillPending = new Set(existing?.pending ?? []);
      const record: CatchmentRecord = {
        subscription_id: subscriptionId,
        postcodes: [...postcodes],
        updated_at: now.toISOString(),
        pending: postcodes.filter((postcode) => !before.has(postcode) || stillPending.has(postcode)),
      };
      if (existing) Object.assign(existing, record);
      else draft.catchments.push(record);
      pruneAlerts(draft, now);
    });
  }

  async alerts(subscriptionId: string, since?: string): Promise<Alert[]> {
    const after = since === undefined ? 0n : BigInt(since);
    return this.store.current.alerts
      .filter((a) => a.subscription_id === subscriptionId && BigInt(a.id) > after)
      .map(publicAlert);
  }

  async processedRefresh(): Promise<string | null> {
    return this.store.current.processed_refresh;
  }

  async processRefresh(run: RefreshToProcess): Promise<ProcessedRefresh> {
    if (!laterRefresh(run.refresh, this.store.current.processed_refresh)) return NOTHING;
    // Every batch is returned whatever `run.announce` says: they are in memory already.
    const batches = await this.store.update((draft) => {
      // Checked again under the document's lock: another process may have processed it meanwhile.
      if (!laterRefresh(run.refresh, draft.processed_refresh)) return [];
      const created = diffAll(draft, run);
      draft.processed_refresh = run.refresh;
      pruneAlerts(draft, run.now);
      return created;
    });
    return {
      batches,
      recorded: batches.reduce((n, b) => n + b.alerts.length, 0),
      subscriptions: batches.length,
    };
  }
}

/**
 * Each postcode of any catchment is evaluated once; its state is compared once with the state kept from the last
 * processed refresh; only the catchments holding a changed postcode get alerts (not for their `pending` ones, whose
 * refresh this is the baseline of). The kept states become the new ones, for the postcodes still in a catchment.
 */
function diffAll(draft: CatchmentsFile, run: RefreshToProcess): AlertBatch[] {
  const { states, changed } = newStates(draft, run);
  const createdAt = run.now.toISOString();
  const batches: AlertBatch[] = [];
  for (const catchment of draft.catchments) {
    const alerts: CatchmentsFile['alerts'] = [];
    if (changed.size > 0) {
      const pending = new Set(catchment.pending);
      for (const postcode of catchment.postcodes) {
        const change = changed.get(postcode);
        // A postcode saved since the last processed refresh: this refresh is its baseline, silently.
        if (!change || pending.has(postcode)) continue;
        for (const fields of changeAlerts(postcode, change.before, change.now, run.titleOf, createdAt)) {
          alerts.push({ id: String(draft.next_alert_id++), ...fields, subscription_id: catchment.subscription_id });
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

function newStates(draft: CatchmentsFile, run: RefreshToProcess) {
  const held = new Set<string>();
  for (const catchment of draft.catchments) for (const postcode of catchment.postcodes) held.add(postcode);
  const states: Record<string, PostcodeState> = {};
  const changed = new Map<string, { before: PostcodeState; now: EvaluatedPostcode }>();
  for (const postcode of [...held].sort()) {
    const now = run.evaluate(postcode);
    const before = draft.states[postcode];
    // Unchanged states keep their object, so an unchanged document is written as it was.
    states[postcode] = before && sameState(before, now.state) ? before : now.state;
    if (before && !sameState(before, now.state)) changed.set(postcode, { before, now });
  }
  return { states, changed };
}
