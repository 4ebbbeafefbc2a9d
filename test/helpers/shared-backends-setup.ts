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
  const [postgres, redis] = await Promise.all([startPostgres(), startRedisServer()]);
  try {
    const templateUrl = await postgres.createDatabase(TEMPLATE);
    const pool = new pg.Pool({ connectionString: templateUrl, max: 1 });
    try {
      await migrateDatabase(pool, { logger: createLogger('silent') });
    } finally {
      await pool.end();
    }
    project.provide('sharedBackends', { postgresUrl: postgres.url, redisUrl: redis.url, templateDatabase: TEMPLATE });
  } catch (err) {
    await Promise.all([postgres.stop(), redis.close()]);
    throw err;
  }
  return async () => {
    await Promise.all([postgres.stop(), redis.close()]);
  };
}
