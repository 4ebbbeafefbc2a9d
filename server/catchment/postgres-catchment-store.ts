import { deleteRows, diffRows, insertRows, recordTable, updateRows, type Queryable } from '../storage/postgres/rows';
import { CatchmentsFile, type CatchmentRecord, type PostcodeState, type StoredAlert } from './catchment-records';
import type { TableCodec } from '../storage/document';

/** Exported for the JSON import. */
export const CATCHMENTS = recordTable<CatchmentRecord>({
  table: 'catchments',
  label: 'catchment',
  key: 'subscription_id',
  ordered: false,
  columns: [
    { name: 'subscription_id', type: 'text' },
    { name: 'postcodes', type: 'text[]' },
    { name: 'updated_at', type: 'timestamptz' },
    { name: 'pending', type: 'text[]' },
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

const bySubscription = (c: CatchmentRecord) => c.subscription_id;
const byId = (a: { id: string }) => a.id;
const byPostcode = (s: StateRow) => s.postcode;

/**
 * catchments.json as the tables of migrations 0004 and 0007: `catchments` (a row per subscription, its pending
 * postcodes as text[]), `catchment_postcode_states` (each catchment postcode's state at the processed refresh),
 * `catchment_alerts` (a row per alert, id as bigint) and `catchments_meta` (the processed-refresh marker and the next
 * alert id). A write touches the catchments that changed, inserts the new alerts and deletes the pruned ones.
 */
export const catchmentsCodec: TableCodec<CatchmentsFile> = {
  async load(client: Queryable): Promise<CatchmentsFile> {
    const meta = await client.query('SELECT processed_refresh, next_alert_id::text AS next FROM catchments_meta');
    const catchments = await client.query(`SELECT ${CATCHMENTS.select} FROM catchments ORDER BY subscription_id`);
    const alerts = await client.query(`SELECT ${CATCHMENT_ALERTS.select} FROM catchment_alerts ORDER BY id`);
    const states = await client.query(
      `SELECT ${CATCHMENT_POSTCODE_STATES.select} FROM catchment_postcode_states ORDER BY postcode`,
    );
    return {
      processed_refresh: meta.rows[0]?.processed_refresh ?? null,
      next_alert_id: Number(meta.rows[0]?.next ?? 1),
      catchments: catchments.rows.map((r) => CATCHMENTS.fromRow(r)),
      states: Object.fromEntries(
        states.rows.map((r) => {
          const { postcode, ...state } = CATCHMENT_POSTCODE_STATES.fromRow(r);
          return [postcode, state];
        }),
      ),
      alerts: alerts.rows.map((r) => CATCHMENT_ALERTS.fromRow(r)),
    };
  },

  async save(client: Queryable, before: CatchmentsFile, after: CatchmentsFile): Promise<void> {
    const catchments = diffRows(before.catchments, after.catchments, bySubscription);
    await deleteRows(client, CATCHMENTS, catchments.deleted.map(bySubscription));
    await updateRows(client, CATCHMENTS, catchments.updated.map(CATCHMENTS.toRow));
    await insertRows(client, CATCHMENTS, catchments.inserted.map(CATCHMENTS.toRow));
    const states = diffRows(stateRows(before.states), stateRows(after.states), byPostcode);
    await deleteRows(client, CATCHMENT_POSTCODE_STATES, states.deleted.map(byPostcode));
    await updateRows(client, CATCHMENT_POSTCODE_STATES, states.updated.map(CATCHMENT_POSTCODE_STATES.toRow));
    await insertRows(client, CATCHMENT_POSTCODE_STATES, states.inserted.map(CATCHMENT_POSTCODE_STATES.toRow));
    // Alerts never change once written: only new ones and pruned ones.
    const alerts = diffRows(before.alerts, after.alerts, byId);
    if (alerts.deleted.length > 0) {
      await client.query('DELETE FROM catchment_alerts WHERE id = ANY($1::bigint[])', [alerts.deleted.map(byId)]);
    }
    await insertRows(client, CATCHMENT_ALERTS, alerts.inserted.map(CATCHMENT_ALERTS.toRow));
    if (before.processed_refresh !== after.processed_refresh || before.next_alert_id !== after.next_alert_id) {
      await client.query('UPDATE catchments_meta SET processed_refresh = $1, next_alert_id = $2', [
        after.processed_refresh,
        after.next_alert_id,
      ]);
    }
  },

  // Loaded as written: catchments by subscription id, alerts by id.
  retained: (written) => ({
    ...written,
    catchments: [...written.catchments].sort((a, b) => (a.subscription_id < b.subscription_id ? -1 : 1)),
  }),
};
