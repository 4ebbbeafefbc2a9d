import { z } from 'zod';
import { ALERT_RETENTION_DAYS, Alert } from '../../shared/api/alerts';
import type { DocumentStore } from '../storage/document-store';

/** What the alerts of a postcode are computed from: whether it was eligible, and under which declarations. */
export const PostcodeState = z.object({
  is_eligible: z.boolean(),
  /** AGRNs of the active declarations covering the postcode, ascending (compareAgrn). */
  active_agrns: z.array(z.string()),
});
export type PostcodeState = z.infer<typeof PostcodeState>;

/** One subscription's catchment: its postcodes, and which of them have not been through a processed refresh yet. */
export const CatchmentRecord = z.object({
  subscription_id: z.string().min(1),
  /** Distinct, ascending. */
  postcodes: z.array(z.string()),
  updated_at: z.string(),
  /**
   * Postcodes saved since the last processed refresh (ascending): the next processed refresh is their baseline, never
   * an alert. Postcodes kept across a save stay out of it.
   */
  pending: z.array(z.string()),
});
export type CatchmentRecord = z.infer<typeof CatchmentRecord>;

/** An alert as stored: the API's, and whose it is. */
export const StoredAlert = Alert.extend({ subscription_id: z.string().min(1) });
export type StoredAlert = z.infer<typeof StoredAlert>;

/**
 * DATA_DIR/catchments.json (or the catchment tables): every catchment, every alert kept, the refresh processed last
 * and each catchment postcode's state at it. A postcode's state is the data's, the same in every catchment, so it is
 * kept once (at most one per postcode, not one per catchment entry). Catchments, alerts, states and the marker are
 * one document so that processing a refresh (diff, new alerts, new states, marker) is one atomic write, serialised
 * across processes and instances.
 */
export const CatchmentsFile = z.object({
  /** `last_updated` of the declarations the baselines were computed from; null before any was processed. */
  processed_refresh: z.string().nullable(),
  /** The id the next alert gets (ids are global and never reused). */
  next_alert_id: z.number().int().positive(),
  catchments: z.array(CatchmentRecord),
  /** Each postcode of any catchment: its state at `processed_refresh` (the baseline of the next diff). */
  states: z.record(z.string(), PostcodeState),
  /** Oldest first (ascending id). */
  alerts: z.array(StoredAlert),
});
export type CatchmentsFile = z.infer<typeof CatchmentsFile>;

export const emptyCatchments = (): CatchmentsFile => ({
  processed_refresh: null,
  next_alert_id: 1,
  catchments: [],
  states: {},
  alerts: [],
});

const DAY_MS = 86_400_000;

/** Removes alerts older than the retention period (every write of the document does). */
export function pruneAlerts(draft: CatchmentsFile, now: Date): void {
  const cutoff = new Date(now.getTime() - ALERT_RETENTION_DAYS * DAY_MS).toISOString();
  const keepFrom = draft.alerts.findIndex((a) => a.created_at >= cutoff);
  if (keepFrom === -1) draft.alerts = [];
  else if (keepFrom > 0) draft.alerts = draft.alerts.slice(keepFrom);
}

/** Where catchments, their baselines and the alerts are kept: what the catchment and alert services depend on. */
export type CatchmentStore = DocumentStore<CatchmentsFile>;
