import { createHash } from 'node:crypto';
import type pg from 'pg';

/** A lock held by this process until released, or until its connection ends (the process dies, the link drops). */
export interface AdvisoryLock {
  release(): Promise<void>;
}

/**
 * The bigint key of the advisory lock called `name`: the first 8 bytes of SHA-256 of the service's name and `name`,
 * as a signed 64-bit number, as migrate.ts derives MIGRATION_LOCK_KEY.
 */
export function advisoryLockKey(name: string): string {
  return createHash('sha256').update(`disaster-telehealth-eligibility:${name}`).digest().readBigInt64BE(0).toString();
}

/**
 * Takes the session-level advisory lock `name` if no one holds it (null if someone does), for work one instance at a
 * time may do, such as the ingest. The lock lives on one pooled connection held until `release()`: a process that
 * is killed loses its connection and with it the lock, so nobody waits for a holder that is gone.
 */
export async function tryAdvisoryLock(pool: pg.Pool, name: string): Promise<AdvisoryLock | null> {
  const key = advisoryLockKey(name);
  const client = await pool.connect();
  // While held, the client is out of the pool, which no longer listens to it: a dropped connection must not crash us.
  const onError = () => undefined;
  client.on('error', onError);
  let locked = false;
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [
      key,
    ]);
    locked = rows[0]?.locked === true;
  } catch (err) {
    client.off('error', onError);
    client.release(err as Error);
    throw err;
  }
  if (!locked) {
    client.off('error', onError);
    client.release();
    return null;
  }
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= (async () => {
        let broken: Error | undefined;
        try {
          await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
        } catch (err) {
          // Lock state unknown: the connection is closed rather than returned still locked, which frees it.
          broken = err as Error;
        } finally {
          client.off('error', onError);
          client.release(broken ?? false);
        }
      })();
      return released;
    },
  };
}
