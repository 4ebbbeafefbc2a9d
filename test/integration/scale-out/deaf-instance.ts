import type { AddressInfo } from 'node:net';
import type { RedisClientType } from 'redis';
import { createApp } from '../../../server/app';
import { loadConfig } from '../../../server/config';
import { createHttpServer } from '../../../server/http/http-server';
import { createLogger } from '../../../server/logger';
import { buildPostcodeIndex } from '../../../server/postcodes/postcode-index';
import { openRuntime, type ServerRuntime } from '../../../server/runtime';
import type { DataVersions } from '../../../server/storage/postgres/data-versions';
import { LOCALITY_ROWS } from '../../fixtures/localities';
import { tempDir } from '../../helpers/temp-dir';

/** What the instance sent to its backends since `reset()`. */
export interface BackendCalls {
  /** Statements sent by `pool.query` (the version query among them). */
  queries: number;
  /** Connections taken for a transaction (each reload takes one). */
  connects: number;
  /** DataVersions.sync calls (the check's catch-ups). */
  syncs: number;
  /** Commands sent on the rate limit's Redis connection. */
  redisCommands: number;
  reset(): void;
}

export interface DeafInstance {
  url: string;
  runtime: ServerRuntime;
  calls: BackendCalls;
  /** Makes every later sync hang (a database that accepts connections but never answers); returns the undo. */
  hangSyncs(): () => void;
  close(): Promise<void>;
}

/**
 * A server instance in this process on the deployment `env` describes (DATABASE_URL, REDIS_URL), with the app,
 * runtime and HTTP server `npm start` runs, that hears nothing from the other processes by itself: its LISTEN
 * notifications and its once-a-second poll are switched off. Whatever it learns of another instance's commit it learns
 * on a request's path, which is what a test of "refused on the very next request" must show (a notification on
 * loopback would otherwise usually win the race). Its calls to PostgreSQL and Redis are counted.
 */
export async function startDeafInstance(env: Record<string, string>): Promise<DeafInstance> {
  const runtime = await openRuntime(loadConfig({ ...env, DATA_DIR: await tempDir('dte-deaf-') }), {
    logger: createLogger('silent'),
    postcodes: buildPostcodeIndex(LOCALITY_ROWS),
  });
  const versions = runtime.database!.versions;
  // The two ways DataVersions learns of commits on its own (private: this is a test's doing, not an option).
  Object.assign(versions as object, { poll: () => undefined, onNotification: () => undefined });
  const calls = countCalls(runtime, versions);
  const sync = versions.sync;
  const server = createHttpServer(createApp(runtime), runtime.logger);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    runtime,
    calls,
    hangSyncs() {
      versions.sync = () => {
        calls.syncs++;
        return new Promise<void>(() => undefined);
      };
      return () => (versions.sync = sync);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}

function countCalls(runtime: ServerRuntime, versions: DataVersions): BackendCalls {
  const calls: BackendCalls = {
    queries: 0,
    connects: 0,
    syncs: 0,
    redisCommands: 0,
    reset() {
      calls.queries = calls.connects = calls.syncs = calls.redisCommands = 0;
    },
  };
  const pool = runtime.database!.pool as unknown as Record<'query' | 'connect', (...args: unknown[]) => unknown>;
  const query = pool.query.bind(pool);
  const connect = pool.connect.bind(pool);
  pool.query = (...args) => (calls.queries++, query(...args));
  pool.connect = (...args) => {
    // pool.query takes its connection with a callback: counted as the query.
    if (args.length === 0) calls.connects++;
    return connect(...args);
  };
  const sync = versions.sync.bind(versions);
  versions.sync = () => (calls.syncs++, sync());
  // The counter's client, and the view of it (withCommandOptions) that its scripts go through: one connection.
  // (Without REDIS_URL the counter is in this process: there is nothing to count.)
  const counter = runtime.rateLimitCounter as unknown as Partial<Record<'client' | 'commandClient', RedisClientType>>;
  for (const client of [counter.client, counter.commandClient]) {
    if (!client) continue;
    const send = client.sendCommand.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { sendCommand: typeof send }).sendCommand = (...args) => (
      calls.redisCommands++,
      send(...args)
    );
  }
  return calls;
}
