import type pg from 'pg';
import { storageError } from './unavailable';

/**
 * Runs `work` in one transaction on a client of `pool`: committed when it resolves, rolled back when it throws (the
 * error rethrown, as storageUnavailable() when the database went away). A client whose rollback failed is
 * discarded rather than returned to the pool.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect().catch((err: unknown) => {
    throw storageError(err);
  });
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw storageError(err);
  } finally {
    client.release(broken ?? false);
  }
}
