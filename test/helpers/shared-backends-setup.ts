import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createLogger } from '../../server/logger';
import { migrateDatabase } from '../../server/storage/postgres/migrate';
import { startPostgres } from './postgres-server';
import { startRedisServer } from './redis-server';

const TEMPLATE = 'dte_template';

/**
 * globalSetup of the shared-backend project: one throwaway PostgreSQL and one Redis on loopback for the whole run,
 * a template database migrated once (each data directory's database is a copy of it, see shared-backends.ts), and
 * both stopped and removed afterwards.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // allSettled, not all: when one fails to start, the other is still stopped. A server left running holds the pipes
  // of its output open, and vitest then waits on them ("close timed out") before it can exit with the error.
  const [postgres, redis] = await Promise.allSettled([startPostgres(), startRedisServer()]);
  const stop = () =>
    Promise.all([
      postgres.status === 'fulfilled' ? postgres.value.stop() : undefined,
      redis.status === 'fulfilled' ? redis.value.close() : undefined,
    ]).then(() => undefined);
  try {
    if (postgres.status === 'rejected') throw postgres.reason;
    if (redis.status === 'rejected') throw redis.reason;
    const templateUrl = await postgres.value.createDatabase(TEMPLATE);
    const pool = new pg.Pool({ connectionString: templateUrl, max: 1 });
    try {
      await migrateDatabase(pool, { logger: createLogger('silent') });
    } finally {
      await pool.end();
    }
    project.provide('sharedBackends', {
      postgresUrl: postgres.value.url,
      redisUrl: redis.value.url,
      templateDatabase: TEMPLATE,
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return stop;
}
