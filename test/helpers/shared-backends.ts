import { createHash } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/**
 * Which backend the integration contract tests run on. The same test files run twice (vitest.config.ts): once on
 * the embedded default (JSON files in DATA_DIR, in-process counters) and once with DATABASE_URL and REDIS_URL set,
 * against one throwaway PostgreSQL and one throwaway Redis that test/helpers/shared-backends-setup.ts starts for the
 * whole run. Nothing in a test file changes between the two: the servers, the admin CLI and the data helpers it
 * starts pick the backend up here.
 */
export type TestBackend = 'json' | 'shared';

export interface SharedBackendUrls {
  /** The `postgres` database of the throwaway server, as superuser: for creating each test's database. */
  postgresUrl: string;
  redisUrl: string;
  /** A database with the service's schema applied, copied for each data directory (CREATE DATABASE … TEMPLATE). */
  templateDatabase: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    sharedBackends: SharedBackendUrls | null;
  }
}

export function testBackend(): TestBackend {
  return process.env.DTE_TEST_BACKEND === 'shared' ? 'shared' : 'json';
}

const created = new Map<string, Promise<void>>();

/**
 * The configuration that puts `dataDir`'s state on the shared backends: its own database (made from the migrated
 * template the first time) and its own Redis key prefix, both derived from the directory's path. So a test that
 * restarts a server on the same directory, or runs the admin CLI on it, finds the same data, and tests never see one
 * another's. Empty on the JSON backend.
 */
export async function backendEnv(dataDir: string): Promise<Record<string, string>> {
  if (testBackend() === 'json') return {};
  const urls = inject('sharedBackends');
  if (!urls) throw new Error('DTE_TEST_BACKEND=shared needs test/helpers/shared-backends-setup.ts as globalSetup');
  const id = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  const database = `dte_${id}`;
  let creating = created.get(database);
  if (!creating) {
    creating = createFromTemplate(urls, database);
    created.set(database, creating);
  }
  await creating;
  const url = new URL(urls.postgresUrl);
  url.pathname = `/${database}`;
  return {
    DATABASE_URL: url.toString(),
    REDIS_URL: urls.redisUrl,
    REDIS_KEY_PREFIX: `t${id}:`,
    // Instances sharing backends share the secret that signs their cookies (required with DATABASE_URL/REDIS_URL).
    SESSION_SECRET: createHash('sha256').update(`session secret of ${dataDir}`).digest('base64url'),
  };
}

async function createFromTemplate(urls: SharedBackendUrls, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: urls.postgresUrl });
  await client.connect();
  try {
    await client.query(
      `CREATE DATABASE ${pg.escapeIdentifier(database)} TEMPLATE ${pg.escapeIdentifier(urls.templateDatabase)}`,
    );
  } catch (err) {
    if ((err as { code?: string }).code !== '42P04') throw err; // made by an earlier run of this worker
  } finally {
    await client.end();
  }
}
