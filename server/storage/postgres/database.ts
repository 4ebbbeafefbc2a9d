import pg from 'pg';
import type { Logger } from '../../logger';
import { DataVersions } from './data-versions';
import { migrateDatabase } from './migrate';

/** The PostgreSQL a process shares with the other instances (DATABASE_URL), migrated and ready for the stores. */
export interface Database {
  readonly pool: pg.Pool;
  /** Keeps the stores of this process fresh; see DataVersions. */
  readonly versions: DataVersions;
  /** Whether the database answers `SELECT 1` within a second (for the health endpoint). */
  ping(): Promise<boolean>;
  /** Stops listening and closes every connection. Close the stores first. */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  logger: Logger;
  /** Shown in pg_stat_activity, to tell instances and CLIs apart. */
  applicationName?: string;
  /** Connections in the pool. Default 10. */
  poolSize?: number;
}

const TIMESTAMPTZ_OID = 1184;
const DATE_OID = 1082;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number;

/**
 * The documents hold times as ISO text with milliseconds and days as YYYY-MM-DD, and compare them as text: a
 * timestamptz is read back as that ISO text (node-postgres would give a Date), and a `date` as the server's text (a
 * Date at local midnight could shift the day with the time zone). Other types keep node-postgres's parsers (bigint
 * stays text).
 */
export const PG_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format === undefined || format === 'text') {
      if (oid === TIMESTAMPTZ_OID) {
        return (text: string) => {
          const parsed = parseTimestamptz(text);
          return parsed instanceof Date ? parsed.toISOString() : text;
        };
      }
      if (oid === DATE_OID) return (text: string) => text;
    }
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * The settings of every connection (pool and LISTEN): a connection attempt gives up after 2 s and a statement after
 * 10 s, so a database that hangs turns into errors (503s) rather than requests piling up; DateStyle ISO makes the
 * server's `date` text YYYY-MM-DD whatever its configuration.
 */
export function connectionConfig(url: string, applicationName = 'disaster-telehealth-eligibility'): pg.ClientConfig {
  return {
    connectionString: url,
    application_name: applicationName,
    connectionTimeoutMillis: 2_000,
    statement_timeout: 10_000,
    // The client's own limit, for a server that stopped answering altogether (statement_timeout needs it to answer).
    query_timeout: 15_000,
    // A transaction left open by a stuck process would hold its document's lock: the server ends it.
    idle_in_transaction_session_timeout: 60_000,
    keepAlive: true,
    options: '-c DateStyle=ISO',
    types: PG_TYPES,
  };
}

/**
 * Connects to DATABASE_URL and brings its schema up to date (migrate.ts: one instance migrates, the others wait), so
 * that nothing reads or writes before the schema is this release's. A database migrated by a newer release is
 * refused with migrate.ts's SchemaTooNewError, unchanged, for the caller to report.
 */
export async function openDatabase(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const { logger } = options;
  const clientConfig = connectionConfig(url, options.applicationName);
  await migrate(clientConfig, logger);
  const pool = new pg.Pool({ ...clientConfig, max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  // An idle connection the server drops (restart, failover) is replaced on next use; unheard, it would crash us.
  pool.on('error', (err) => logger.warn({ err }, 'an idle database connection was lost'));
  hearLostConnections(pool);
  const versions = new DataVersions({ pool, clientConfig, logger });
  let closing: Promise<void> | undefined;
  return {
    pool,
    versions,
    ping: () => ping(pool),
    close() {
      closing ??= (async () => {
        await versions.close();
        await pool.end();
      })();
      return closing;
    },
  };
}

/**
 * Migrates on a connection of its own without the statement timeouts: a migration may take longer than a request
 * should (an index on a large table), and so may waiting for another instance that is migrating.
 */
async function migrate(clientConfig: pg.ClientConfig, logger: Logger): Promise<void> {
  const pool = new pg.Pool({ ...clientConfig, statement_timeout: undefined, query_timeout: undefined, max: 1 });
  pool.on('error', () => undefined);
  hearLostConnections(pool);
  try {
    await migrateDatabase(pool, { logger });
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/**
 * The pool listens for 'error' only on idle connections: one checked out (a transaction in progress) that the server
 * drops emits 'error' with nobody listening, and an unheard 'error' event ends the process — every instance at once
 * when the database goes away under writes. The statement running on it fails by itself (the caller answers 503) and
 * the pool discards the dead connection on release, so the event needs only to be heard.
 */
export function hearLostConnections(pool: pg.Pool): void {
  pool.on('connect', (client) => client.on('error', ignore));
}

const ignore = () => undefined;

const PING_TIMEOUT_MS = 1_000;

async function ping(pool: pg.Pool): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([
      pool.query('SELECT 1').then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
