import type pg from 'pg';
import { storageError } from '../storage/postgres/unavailable';
import type { UsageIncrement, UsageRepository, UsageRow } from './usage-repository';

/** Adds each increment to its key's day, creating the row the first time: concurrent flushes add up exactly. */
const ADD_SQL = `
  INSERT INTO key_usage (subscription_id, key_id, day, answered, refused, rate_limited, batch_rows)
  SELECT * FROM jsonb_to_recordset($1::jsonb)
    AS v(subscription_id text, key_id text, day date, answered integer, refused integer, rate_limited integer,
         batch_rows integer)
  ORDER BY key_id, day
  ON CONFLICT (key_id, day) DO UPDATE SET
    answered = key_usage.answered + EXCLUDED.answered,
    refused = key_usage.refused + EXCLUDED.refused,
    rate_limited = key_usage.rate_limited + EXCLUDED.rate_limited,
    batch_rows = key_usage.batch_rows + EXCLUDED.batch_rows`;

/** Checks per key per day as PostgreSQL rows (migrations 0012, 0017), shared by every instance. */
export class PostgresUsage implements UsageRepository {
  constructor(private readonly pool: pg.Pool) {}

  async add(increments: readonly UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    await this.query(ADD_SQL, [JSON.stringify(increments)]);
  }

  async read(subscriptionId: string, fromDay: string, toDay: string): Promise<UsageRow[]> {
    const { rows } = await this.query<UsageRow>(
      `SELECT subscription_id, key_id, to_char(day, 'YYYY-MM-DD') AS day, answered, refused, rate_limited,
         batch_rows
       FROM key_usage WHERE subscription_id = $1 AND day BETWEEN $2::date AND $3::date`,
      [subscriptionId, fromDay, toDay],
    );
    return rows;
  }

  async purgeBefore(day: string): Promise<void> {
    await this.query('DELETE FROM key_usage WHERE day < $1::date', [day]);
  }

  private async query<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, values);
    } catch (err) {
      throw storageError(err);
    }
  }
}
