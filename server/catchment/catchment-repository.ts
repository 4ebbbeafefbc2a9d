import type { Alert } from '../../shared/api/alerts';
import type { Coverage } from '../../shared/api/check';
import type { AlertBatch, Wanted } from './alert-events';
import { alertText, diffPostcodeState } from './alert-diff';
import type { CatchmentRecord, PostcodeState } from './catchment-records';

/** A catchment postcode's state at the refresh being processed, and what its alerts say of its council areas. */
export interface EvaluatedPostcode {
  state: PostcodeState;
  /** The principal LGA ("" when unknown). */
  lgaName: string;
  coverage: Coverage;
  /** The names of the postcode's LGAs an active declaration covers, and of those none covers. */
  covered: string[];
  uncovered: string[];
}

/** One refresh to process: which it is, when, and how the data judges each postcode at it. */
export interface RefreshToProcess {
  /** The declarations' `last_updated`. */
  refresh: string;
  now: Date;
  evaluate(postcode: string): EvaluatedPostcode;
  /** Declaration titles by AGRN. */
  titleOf(agrn: string): string;
  /** Whose new alerts to return (the listeners'): a store may leave the others out of what it returns. */
  announce: Wanted;
}

/**
 * Where catchments and their alerts are kept: DATA_DIR/catchments.json for a single practice's server (one document,
 * bounded: every read is from memory), or PostgreSQL's rows for the whole country (a catchment per subscription, an
 * entry per postcode, alerts append-only and read by id: nothing grows in an instance's memory).
 */
export interface CatchmentRepository {
  /** The subscription's catchment; undefined when it saved none. */
  get(subscriptionId: string): Promise<CatchmentRecord | undefined>;
  /**
   * Replaces the list with `postcodes` (distinct, ascending). Postcodes kept keep their baseline; new ones get theirs
   * silently at the next processed refresh (they are pending until then).
   */
  replace(subscriptionId: string, postcodes: readonly string[], now: Date): Promise<void>;
  /** The subscription's alerts with an id greater than `since` (all kept when absent), oldest first. */
  alerts(subscriptionId: string, since?: string): Promise<Alert[]>;
  /** The refresh whose alerts were recorded last; null before any. */
  processedRefresh(): Promise<string | null>;
  /**
   * Records the alerts of `run.refresh` if it is later than the refresh processed last, once across every process
   * and instance (serialised, all or nothing: a process killed half-way leaves it unprocessed for the next), moves
   * the baselines and the marker, and drops alerts past their retention. Returns the new alerts by subscription (at
   * least those of `run.announce`) and how many were recorded in all.
   */
  processRefresh(run: RefreshToProcess): Promise<ProcessedRefresh>;
}

export interface ProcessedRefresh {
  batches: AlertBatch[];
  /** Alerts recorded, in every subscription. */
  recorded: number;
  /** Subscriptions that got any. */
  subscriptions: number;
}

/** The alert fields of one postcode's change (without id and owner), in the order they are recorded. */
export function changeAlerts(
  postcode: string,
  before: PostcodeState,
  now: EvaluatedPostcode,
  titleOf: (agrn: string) => string,
  createdAt: string,
): Omit<Alert, 'id'>[] {
  const place = { postcode, ...now };
  return diffPostcodeState(before, now.state).map(({ kind, agrn }) => {
    const title = titleOf(agrn);
    return {
      created_at: createdAt,
      kind,
      postcode,
      lga_name: now.lgaName,
      agrn,
      title,
      text: alertText(kind, place, agrn, title),
      coverage: now.coverage,
    };
  });
}

/** Whether refresh time `a` is later than `b` (ISO instants). */
export const laterRefresh = (a: string, b: string | null) => b === null || Date.parse(a) > Date.parse(b);
