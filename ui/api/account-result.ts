import type { ClientCatchmentData } from '../../shared/api/catchment';
import type { DataMetadata } from '../../shared/api/check';

/** An answer from the account endpoints (sign-in, keys, catchment, alerts, webhook), its failure already in words. */
export type AccountResult<T> =
  | { ok: true; data: T }
  /** `details`: the offending values, when the server lists them (the postcodes a catchment save refused). */
  | { ok: false; code: string; message: string; status?: number; details?: string[] };

export type AccountFailure = Extract<AccountResult<unknown>, { ok: false }>;

/** The clinic's catchment as the server computed it from the current data, and how fresh that data is. */
export interface CatchmentAnswer {
  data: ClientCatchmentData;
  metadata: DataMetadata;
}
