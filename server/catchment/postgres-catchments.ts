import type pg from 'pg';
import type { Alert } from '../../shared/api/alerts';
import { ALERT_RETENTION_DAYS } from '../../shared/api/alerts';
import { inTransaction } from '../storage/postgres/transaction';
import { storageError } from '../storage/postgres/unavailable';
import type { AlertBatch, Wanted } from './alert-events';
import { sameState } from './alert-diff';
import type { CatchmentRecord, PostcodeState } from './catchment-records';
import {
  changeAlerts,
  laterRefresh,
  type CatchmentRepository,
  type ProcessedRefresh,
  type RefreshToProcess,
} from './catchment-repository';

const DAY_MS = 86_400_000;
/** Processing a national refresh inserts a few hundred thousand rows: more than a request's 10-s statement limit. */
const PROCESSING_STATEMENT_TIMEOUT = '120s';

/** Postcodes evaluated between two turns of the event loop. */
const EVALUATE_BETWEEN_YIELDS = 200;

const ALERT_COLUMNS = 'id::text AS id, created_at, kind, postcode, lga_name, agrn, title, text, coverage';

/** The distinct postcodes held by any catchment, by a loose index scan (one probe per postcode, not per entry). */
const HELD_POSTCODES_SQL = `
  WITH RECURSIVE held AS (
    (SELECT postcode FROM catchment_entries ORDER BY postcode LIMIT 1)
    UNION ALL
    SELECT (SELECT e.postcode FROM catchment_entries e WHERE e.postcode > held.postcode ORDER BY e.postcode LIMIT 1)
    FROM held WHERE held.postcode IS NOT NULL
  )
  SELECT postcode FROM held WHERE postcode IS NOT NULL`;

/**
 * One statement, so that every part sees the same snapshot: the entries not pending get the alerts of their changed
 * postcode (ids from `$2`, in subscription, postcode, change order), and the pending ones become baselined. An entry
 * saved meanwhile is in neither: it stays pending for the next refresh.
 */
const RECORD_ALERTS_SQL = `
  WITH changes AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb)
      AS c(postcode text, ord integer, created_at timestamptz, kind text, lga_name text, agrn text, title text, text text,
           coverage text)
  ), cleared AS (
    UPDATE catchment_entries SET pending = false WHERE pending RETURNING 1
  ), recorded AS (
    INSERT INTO catchment_alerts (id, subscription_id, created_at, kind, postcode, lga_name, agrn, title, text, coverage)
    SELECT $2::bigint - 1 + row_number() OVER (ORDER BY e.subscription_id, e.postcode, c.ord),
           e.subscription_id, c.created_at, c.kind, c.postcode, c.lga_name, c.agrn, c.title, c.text, c.coverage
    FROM catchment_entries e JOIN changes c ON c.postcode = e.postcode
    WHERE NOT e.pending
    RETURNING subscription_id
  )
  SELECT count(*)::int AS recorded, count(DISTINCT subscription_id)::int AS subscriptions FROM recorded`;

/** An alert as its row is read: `coverage` is null on the alerts recorded before the column was added. */
type AlertRow = Omit<Alert, 'coverage'> & { coverage: Alert['coverage'] | null };

/** The API's alert of a row: without `coverage` where the row has none. */
function alertOf({ coverage, ...alert }: AlertRow): Alert {
  return coverage === null ? alert : { ...alert, coverage };
}

/**
 * The catchments in PostgreSQL's rows, shared by every instance and read per request (migration 0008): a catchment
 * row and one entry per postcode, the states of the postcodes held (the baseline of the next diff), the alerts
 * append-only. Processing a refresh evaluates only the postcodes held (a few thousand across the country, whatever
 * the number of catchments) and records the alerts of the changed ones in set-based statements, in one transaction
 * serialised by the marker row: a refresh is processed once, all or nothing.
 */
export class PostgresCatchments implements CatchmentRepository {
  constructor(private readonly pool: pg.Pool) {}

  async get(subscriptionId: string): Promise<CatchmentRecord | undefined> {
    // Named, so each connection plans it once: every GET /api/v1/catchment reads it.
    const { rows } = await this.query<{ updated_at: string; postcodes: string[]; pending: string[] }>({
      name: 'catchment-record',
      text: `SELECT c.updated_at,
              coalesce(array_agg(e.postcode ORDER BY e.postcode) FILTER (WHERE e.postcode IS NOT NULL), '{}') AS postcodes,
              coalesce(array_agg(e.postcode ORDER BY e.postcode) FILTER (WHERE e.pending), '{}') AS pending
       FROM catchments c LEFT JOIN catchment_entries e USING (subscription_id)
       WHERE c.subscription_id = $1
       GROUP BY c.updated_at`,
      values: [subscriptionId],
    });
    const row = rows[0];
    return row && { subscription_id: subscriptionId, ...row };
  }

  async replace(subscriptionId: string, postcodes: readonly string[], now: Date): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO catchments (subscription_id, updated_at) VALUES ($1, $2)
         ON CONFLICT (subscription_id) DO UPDATE SET updated_at = EXCLUDED.updated_at`,
        [subscriptionId, now.toISOString()],
      );
      await client.query(
        'DELETE FROM catchment_entries WHERE subscription_id = $1 AND NOT (postcode = ANY ($2::text[]))',
        [subscriptionId, postcodes],
      );
      // Kept postcodes keep their row (and their pending flag); new ones are pending.
      await client.query(
        `INSERT INTO catchment_entries (subscription_id, postcode, pending)
         SELECT $1, p, true FROM unnest($2::text[]) AS p ON CONFLICT DO NOTHING`,
        [subscriptionId, postcodes],
      );
      // As every write of the JSON document does: alerts past their retention go (by index, usually none).
      await pruneAlerts(client, now);
    });
  }

  async alerts(subscriptionId: string, since?: string): Promise<Alert[]> {
    const { rows } = await this.query<AlertRow>(
      `SELECT ${ALERT_COLUMNS} FROM catchment_alerts WHERE subscription_id = $1 AND id > $2::bigint ORDER BY id`,
      [subscriptionId, since ?? '0'],
    );
    return rows.map(alertOf);
  }

  async processedRefresh(): Promise<string | null> {
    const { rows } = await this.query<{ processed_refresh: string | null }>(
      'SELECT processed_refresh FROM catchments_meta WHERE singleton',
    );
    return rows[0]?.processed_refresh ?? null;
  }

  async processRefresh(run: RefreshToProcess): Promise<ProcessedRefresh> {
    if (!laterRefresh(run.refresh, await this.processedRefresh())) return NOTHING;
    return inTransaction(this.pool, async (client) => {
      await client.query(`SET LOCAL statement_timeout = '${PROCESSING_STATEMENT_TIMEOUT}'`);
      // The marker's row lock: another instance processing meanwhile waits here, then finds it processed.
      const meta = await client.query<{ processed_refresh: string | null; next_alert_id: string }>(
        'SELECT processed_refresh, next_alert_id::text AS next_alert_id FROM catchments_meta WHERE singleton FOR UPDATE',
      );
      const { processed_refresh: processed, next_alert_id: nextId } = meta.rows[0]!;
      if (!laterRefresh(run.refresh, processed)) return NOTHING;
      const changes = await this.changedPostcodes(client, run);
      const counted = await client.query<{ recorded: number; subscriptions: number }>(RECORD_ALERTS_SQL, [
        JSON.stringify(changes),
        nextId,
      ]);
      const { recorded, subscriptions } = counted.rows[0]!;
      const next = BigInt(nextId) + BigInt(recorded);
      await client.query(
        'UPDATE catchments_meta SET processed_refresh = $1, next_alert_id = $2::bigint WHERE singleton',
        [run.refresh, next.toString()],
      );
      await pruneAlerts(client, run.now);
      const batches = recorded > 0 ? await announced(client, nextId, next, run.announce) : [];
      return { batches, recorded, subscriptions };
    });
  }

  /**
   * Every postcode held is evaluated once and compared with its kept state; the states become the new ones (for the
   * postcodes still held). Returns the changes as alert fields, each numbered within its postcode.
   */
  private async changedPostcodes(client: pg.PoolClient, run: RefreshToProcess) {
    const held = (await client.query<{ postcode: string }>(HELD_POSTCODES_SQL)).rows.map((r) => r.postcode);
    const kept = new Map<string, PostcodeState>();
    const { rows } = await client.query<{ postcode: string; is_eligible: boolean; active_agrns: string[] }>(
      'SELECT postcode, is_eligible, active_agrns FROM catchment_postcode_states',
    );
    for (const r of rows) kept.set(r.postcode, { is_eligible: r.is_eligible, active_agrns: r.active_agrns });
    const createdAt = run.now.toISOString();
    const changes: object[] = [];
    const states: { postcode: string; is_eligible: boolean; active_agrns: string[] }[] = [];
    for (const [i, postcode] of held.entries()) {
      // Evaluating thousands of postcodes takes tens of milliseconds: checks are answered in between.
      if (i % EVALUATE_BETWEEN_YIELDS === EVALUATE_BETWEEN_YIELDS - 1) await new Promise(setImmediate);
      const now = run.evaluate(postcode);
      const before = kept.get(postcode);
      if (before && sameState(before, now.state)) continue;
      states.push({ postcode, ...now.state });
      if (!before) continue;
      changeAlerts(postcode, before, now, run.titleOf, createdAt).forEach((fields, ord) =>
        changes.push({ ...fields, ord }),
      );
    }
    await client.query('DELETE FROM catchment_postcode_states WHERE NOT (postcode = ANY ($1::text[]))', [held]);
    await client.query(
      `INSERT INTO catchment_postcode_states (postcode, is_eligible, active_agrns)
       SELECT postcode, is_eligible, active_agrns
       FROM jsonb_to_recordset($1::jsonb) AS s(postcode text, is_eligible boolean, active_agrns text[])
       ON CONFLICT (postcode) DO UPDATE SET is_eligible = EXCLUDED.is_eligible, active_agrns = EXCLUDED.active_agrns`,
      [JSON.stringify(states)],
    );
    return changes;
  }

  private async query<R extends pg.QueryResultRow>(
    sql: string | pg.QueryConfig,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, values);
    } catch (err) {
      throw storageError(err);
    }
  }
}

const NOTHING: ProcessedRefresh = { batches: [], recorded: 0, subscriptions: 0 };

/**
 * The alerts just recorded (ids `first` up to `next`) of the subscriptions wanted, read back by id: a national refresh
 * records hundreds of thousands, and only the few with a webhook (or a listener) are held in memory.
 */
async function announced(client: pg.PoolClient, first: string, next: bigint, wanted: Wanted): Promise<AlertBatch[]> {
  if (wanted !== 'all' && wanted.size === 0) return [];
  const { rows } = await client.query<AlertRow & { subscription_id: string }>(
    `SELECT subscription_id, ${ALERT_COLUMNS} FROM catchment_alerts
     WHERE id >= $1::bigint AND id < $2::bigint AND ($3::text[] IS NULL OR subscription_id = ANY ($3::text[]))
     ORDER BY id`,
    [first, next.toString(), wanted === 'all' ? null : [...wanted]],
  );
  return batchesOf(rows);
}

/** Deletes the alerts older than the retention period. */
async function pruneAlerts(client: pg.PoolClient, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - ALERT_RETENTION_DAYS * DAY_MS).toISOString();
  await client.query('DELETE FROM catchment_alerts WHERE created_at < $1', [cutoff]);
}

/** The recorded rows (ordered by id) as one batch per subscription, in the order of their first alert. */
function batchesOf(rows: readonly (AlertRow & { subscription_id: string })[]): AlertBatch[] {
  const bySubscription = new Map<string, Alert[]>();
  for (const { subscription_id, ...alert } of rows) {
    let list = bySubscription.get(subscription_id);
    if (!list) bySubscription.set(subscription_id, (list = []));
    list.push(alertOf(alert));
  }
  return [...bySubscription].map(([subscription_id, alerts]) => ({ subscription_id, alerts }));
}
