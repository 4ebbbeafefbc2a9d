import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startPostgres, type PostgresServer } from './postgres-server';

/** The PostgreSQL of one test file (usePostgresServer). */
export interface FilePostgres {
  /** The server, once the file's beforeAll has started it. */
  readonly server: PostgresServer;
  /** Creates an empty database on the server and returns its connection URL. */
  createDatabase(name: string): Promise<string>;
  /**
   * A pool on `url` (4 connections unless `config` says otherwise) that ignores the errors of idle connections the
   * server drops (its fast shutdown after the last test is no test failure). Ended after the test that opened it, or
   * after the file (the describe block) when opened outside a test, in a beforeAll.
   */
  pool(url: string, config?: pg.PoolConfig): pg.Pool;
}

/**
 * One throwaway PostgreSQL (startPostgres) for the calling test file or describe block: started in beforeAll, stopped
 * in afterAll, and the pools opened through it ended in time. Call it at the top of the file or of the describe block.
 * (Kept apart from postgres-server.ts, which the benchmarks and the shared-backend global setup import without vitest.)
 */
export function usePostgresServer(): FilePostgres {
  let server: PostgresServer | undefined;
  let inTest = false;
  const filePools: pg.Pool[] = [];
  const testPools: pg.Pool[] = [];
  const started = () => {
    if (!server) throw new Error('the PostgreSQL server is started in beforeAll: use it in a hook or a test');
    return server;
  };

  beforeAll(async () => {
    server = await startPostgres();
  });
  beforeEach(() => {
    inTest = true;
  });
  afterEach(async () => {
    inTest = false;
    await Promise.all(testPools.splice(0).map((p) => p.end()));
  });
  afterAll(async () => {
    await Promise.all(filePools.splice(0).map((p) => p.end()));
    await server?.stop();
  });

  return {
    get server() {
      return started();
    },
    createDatabase: (name) => started().createDatabase(name),
    pool(url, config = {}) {
      const pool = new pg.Pool({ connectionString: url, max: 4, ...config });
      pool.on('error', () => undefined);
      (inTest ? testPools : filePools).push(pool);
      return pool;
    },
  };
}
