import { recordTable } from '../storage/postgres/rows';
import type { CatchmentRecord, CatchmentsFile, PostcodeState, StoredAlert } from './catchment-records';

/*
 * The catchment tables (migrations 0004, 0007, 0008) as record tables, for the JSON import, which fills them with the
 * same columns PostgresCatchments reads (postgres-catchments.ts).
 */

/** A catchment postcode as its row (migration 0008). */
type EntryRow = { subscription_id: string; postcode: string; pending: boolean };
export const CATCHMENT_ENTRIES = recordTable<EntryRow>({
  table: 'catchment_entries',
  label: 'catchment entry',
  key: 'subscription_id, postcode',
  ordered: false,
  columns: [
    { name: 'subscription_id', type: 'text' },
    { name: 'postcode', type: 'text' },
    { name: 'pending', type: 'boolean' },
  ],
});

/** The document's catchments as entry rows. */
export const entryRows = (catchments: readonly CatchmentRecord[]): EntryRow[] =>
  catchments.flatMap((c) => {
    const pending = new Set(c.pending);
    return c.postcodes.map((postcode) => ({
      subscription_id: c.subscription_id,
      postcode,
      pending: pending.has(postcode),
    }));
  });

export const CATCHMENTS = recordTable<Pick<CatchmentRecord, 'subscription_id' | 'updated_at'>>({
  table: 'catchments',
  label: 'catchment',
  key: 'subscription_id',
  ordered: false,
  columns: [
    { name: 'subscription_id', type: 'text' },
    { name: 'updated_at', type: 'timestamptz' },
  ],
});

/** Exported for the JSON import. */
export const CATCHMENT_ALERTS = recordTable<StoredAlert>({
  table: 'catchment_alerts',
  label: 'alert',
  key: 'id',
  ordered: false,
  columns: [
    // bigint: pg gives int8 back as text, which is the alert id's form.
    { name: 'id', type: 'bigint' },
    { name: 'subscription_id', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
    { name: 'kind', type: 'text' },
    { name: 'postcode', type: 'text' },
    { name: 'lga_name', type: 'text' },
    { name: 'agrn', type: 'text' },
    { name: 'title', type: 'text' },
    { name: 'text', type: 'text' },
    // Absent from the alerts a document recorded before it was added: written as null.
    { name: 'coverage', type: 'text' },
  ],
});

/** A postcode's state at the processed refresh, as its row. Exported for the JSON import. */
type StateRow = PostcodeState & { postcode: string };
export const CATCHMENT_POSTCODE_STATES = recordTable<StateRow>({
  table: 'catchment_postcode_states',
  label: 'catchment postcode state',
  key: 'postcode',
  ordered: false,
  columns: [
    { name: 'postcode', type: 'text' },
    { name: 'is_eligible', type: 'boolean' },
    { name: 'active_agrns', type: 'text[]' },
  ],
});

/** The document's states as rows, in postcode order. */
export const stateRows = (states: CatchmentsFile['states']): StateRow[] =>
  Object.keys(states)
    .sort()
    .map((postcode) => ({ postcode, ...states[postcode]! }));
