import type pg from 'pg';
import type { AlertBatch } from '../catchment/alert-events';
import { insertRows } from '../storage/postgres/rows';
import { inTransaction } from '../storage/postgres/transaction';
import { storageError } from '../storage/postgres/unavailable';
import type { WebhookFields, WebhookRepository } from './webhook-repository';
import {
  queuedDelivery,
  settle,
  summaryOf,
  type Attempt,
  type Claim,
  type Queued,
  type RetryPolicy,
  type Settled,
} from './webhook-queue';
import type { DeliveryRecord, WebhookRecord } from './webhook-records';
import { WEBHOOK_DELIVERIES, WEBHOOKS } from './webhook-tables';

/** Deliveries inserted per statement: a national refresh queues thousands, each body a few kB to a few hundred. */
const INSERT_BATCH = 200;

/**
 * Leases the oldest due deliveries whose webhook still exists, skipping rows another worker is leasing right now:
 * however many instances poll at once, each delivery goes to one.
 */
const CLAIM_SQL = `
  WITH due AS (
    SELECT id FROM webhook_deliveries
    WHERE next_attempt_at <= $1::timestamptz AND (claimed_until IS NULL OR claimed_until <= $1::timestamptz)
    ORDER BY position LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  UPDATE webhook_deliveries d SET claimed_until = $3::timestamptz, claimed_by = $4
  FROM due, webhooks w
  WHERE d.id = due.id AND w.subscription_id = d.subscription_id
  RETURNING d.id, d.subscription_id, d.body, d.attempts, d.position, w.url, w.secret`;

interface ClaimRow {
  id: string;
  subscription_id: string;
  body: string;
  attempts: number;
  position: string;
  url: string;
  secret: string;
}

/**
 * The webhooks and their queue as PostgreSQL rows (migration 0005): each operation reads and writes only the rows it
 * concerns, so a national refresh's thousands of deliveries are never held, cloned or compared in an instance's
 * memory, and instances coordinate by row locks (claims skip what another is leasing).
 */
export class PostgresWebhooks implements WebhookRepository {
  constructor(private readonly pool: pg.Pool) {}

  async get(subscriptionId: string): Promise<WebhookRecord | null> {
    const { rows } = await this.query(`SELECT ${WEBHOOKS.select} FROM webhooks WHERE subscription_id = $1`, [
      subscriptionId,
    ]);
    return rows[0] ? WEBHOOKS.fromRow(rows[0]) : null;
  }

  async put(subscriptionId: string, fields: WebhookFields, cursorIfNew: string | null): Promise<WebhookRecord> {
    const { rows } = await this.query(
      `INSERT INTO webhooks (subscription_id, url, secret, created_at, last_delivery, queued_through)
       VALUES ($1, $2, $3, $4::timestamptz, NULL, $5)
       ON CONFLICT (subscription_id) DO UPDATE SET url = $2, secret = $3, created_at = $4::timestamptz
       RETURNING ${WEBHOOKS.select}`,
      [subscriptionId, fields.url, fields.secret, fields.created_at, cursorIfNew],
    );
    return WEBHOOKS.fromRow(rows[0]!);
  }

  async remove(subscriptionId: string): Promise<boolean> {
    // Its deliveries go with it (ON DELETE CASCADE).
    const { rowCount } = await this.query('DELETE FROM webhooks WHERE subscription_id = $1', [subscriptionId]);
    return (rowCount ?? 0) > 0;
  }

  async subscriptions(): Promise<string[]> {
    const { rows } = await this.query<{ subscription_id: string }>('SELECT subscription_id FROM webhooks');
    return rows.map((r) => r.subscription_id);
  }

  async cursors(): Promise<Pick<WebhookRecord, 'subscription_id' | 'queued_through'>[]> {
    const { rows } = await this.query<Pick<WebhookRecord, 'subscription_id' | 'queued_through'>>(
      'SELECT subscription_id, queued_through FROM webhooks WHERE queued_through IS NOT NULL ORDER BY position',
    );
    return rows;
  }

  async enqueue(batches: readonly AlertBatch[], now: Date): Promise<number> {
    const wanted = batches.filter((b) => b.alerts.length > 0);
    if (wanted.length === 0) return 0;
    const at = now.toISOString();
    return inTransaction(this.pool, async (client) => {
      // The cursors locked, in one order, so that a catch-up and a live batch queue each alert once.
      const { rows } = await client.query<Pick<WebhookRecord, 'subscription_id' | 'queued_through'>>(
        `SELECT subscription_id, queued_through FROM webhooks WHERE subscription_id = ANY($1::text[])
         ORDER BY subscription_id FOR UPDATE`,
        [wanted.map((b) => b.subscription_id)],
      );
      const hooks = new Map(rows.map((r) => [r.subscription_id, r]));
      const queued: Queued[] = [];
      for (const batch of wanted) {
        const hook = hooks.get(batch.subscription_id);
        const next = hook && queuedDelivery(hook, batch, at);
        if (!hook || !next) continue;
        hook.queued_through = next.through;
        queued.push(next);
      }
      for (let i = 0; i < queued.length; i += INSERT_BATCH) {
        const slice = queued.slice(i, i + INSERT_BATCH);
        await insertRows(
          client,
          WEBHOOK_DELIVERIES,
          slice.map((q) => WEBHOOK_DELIVERIES.toRow(q.delivery)),
        );
        await client.query(
          `UPDATE webhooks w SET queued_through = v.through, last_delivery = v.summary
           FROM jsonb_to_recordset($1::jsonb) AS v(subscription_id text, through text, summary jsonb)
           WHERE w.subscription_id = v.subscription_id`,
          [
            JSON.stringify(
              slice.map((q) => ({
                subscription_id: q.delivery.subscription_id,
                through: q.through,
                summary: summaryOf(q.delivery, 'pending'),
              })),
            ),
          ],
        );
      }
      return queued.length;
    });
  }

  async claim(now: Date, limit: number, leaseMs: number, claimer: string): Promise<Claim[]> {
    const { rows } = await this.query<ClaimRow>(CLAIM_SQL, [
      now.toISOString(),
      limit,
      new Date(now.getTime() + leaseMs).toISOString(),
      claimer,
    ]);
    return rows
      .sort((a, b) => (BigInt(a.position) < BigInt(b.position) ? -1 : 1))
      .map((r) => ({
        id: r.id,
        subscriptionId: r.subscription_id,
        body: r.body,
        url: r.url,
        secret: r.secret,
        attempt: r.attempts + 1,
      }));
  }

  async record(attempts: readonly Attempt[], claimer: string, retry: RetryPolicy): Promise<Settled[]> {
    if (attempts.length === 0) return [];
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query(
        `SELECT ${WEBHOOK_DELIVERIES.select} FROM webhook_deliveries
         WHERE id = ANY($1::text[]) AND claimed_by = $2 ORDER BY id FOR UPDATE`,
        [attempts.map((a) => a.claim.id), claimer],
      );
      const held = new Map(rows.map((r) => [r.id as string, WEBHOOK_DELIVERIES.fromRow(r)]));
      const settled: Settled[] = [];
      for (const attempt of attempts) {
        const d = held.get(attempt.claim.id);
        if (!d) continue;
        const after = settle(d, attempt, retry);
        await this.write(client, after);
        settled.push(after);
      }
      return settled;
    });
  }

  async queued(): Promise<DeliveryRecord[]> {
    const { rows } = await this.query(`SELECT ${WEBHOOK_DELIVERIES.select} FROM webhook_deliveries ORDER BY position`);
    return rows.map(WEBHOOK_DELIVERIES.fromRow);
  }

  /** One settled delivery: kept (retrying) or gone, and its webhook's last_delivery if it is still the newest. */
  private async write(client: pg.PoolClient, { delivery: d, status }: Settled): Promise<void> {
    if (status === 'retrying') {
      await client.query(
        `UPDATE webhook_deliveries SET attempts = $2, first_attempt_at = $3::timestamptz,
           last_attempt_at = $4::timestamptz, next_attempt_at = $5::timestamptz, http_status = $6, error = $7,
           claimed_until = NULL, claimed_by = NULL
         WHERE id = $1`,
        [d.id, d.attempts, d.first_attempt_at, d.last_attempt_at, d.next_attempt_at, d.http_status, d.error],
      );
    } else {
      await client.query('DELETE FROM webhook_deliveries WHERE id = $1', [d.id]);
    }
    await client.query(
      `UPDATE webhooks SET last_delivery = $3::jsonb WHERE subscription_id = $1 AND last_delivery->>'id' = $2`,
      [d.subscription_id, d.id, JSON.stringify(summaryOf(d, status))],
    );
  }

  private async query<R extends pg.QueryResultRow = Record<string, unknown>>(
    sql: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, values);
    } catch (err) {
      throw storageError(err);
    }
  }
}
