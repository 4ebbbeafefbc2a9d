import { z } from 'zod';
import { ALERT_RETENTION_DAYS, Alert } from '../../shared/api/alerts';

/** What the alerts of a postcode are computed from: whether it was eligible, and under which declarations. */
export const PostcodeState = z.object({
  is_eligible: z.boolean(),
  /** AGRNs of the active declarations covering the postcode, ascending (compareAgrn). */
  active_agrns: z.array(z.string()),
});
export type PostcodeState = z.infer<typeof PostcodeState>;

/** One subscription's catchment: its postcodes and the state each had at the last processed refresh. */
export const CatchmentRecord = z.object({
  subscription_id: z.string().min(1),
  /** Distinct, ascending. */
  postcodes: z.array(z.string()),
  updated_at: z.string(),
  /**
   * Per postcode, its state at the refresh `processed_refresh` names. A postcode without one (just added) is given
   * one silently by the next processed refresh: the first refresh after a save is the baseline, never an alert.
   */
  baseline: z.record(z.string(), PostcodeState),
});
export type CatchmentRecord = z.infer<typeof CatchmentRecord>;

/** An alert as stored: the API's, and whose it is. */
export const StoredAlert = Alert.extend({ subscription_id: z.string().min(1) });
export type StoredAlert = z.infer<typeof StoredAlert>;

/**
 * DATA_DIR/catchments.json (or the catchment tables): every catchment, every alert kept, and which refresh the
 * baselines were computed from. Catchments, alerts and the marker are one document so that processing a refresh
 * (diff, new alerts, new baselines, marker) is one atomic write, serialised across processes and instances.
 */
export const CatchmentsFile = z.object({
  /** `last_updated` of the declarations the baselines were computed from; null before any was processed. */
  processed_refresh: z.string().nullable(),
  /** The id the next alert gets (ids are global and never reused). */
  next_alert_id: z.number().int().positive(),
  catchments: z.array(CatchmentRecord),
  /** Oldest first (ascending id). */
  alerts: z.array(StoredAlert),
});
export type CatchmentsFile = z.infer<typeof CatchmentsFile>;

export const emptyCatchments = (): CatchmentsFile => ({
  processed_refresh: null,
  next_alert_id: 1,
  catchments: [],
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
