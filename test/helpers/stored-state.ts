import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';
import { type AccountStore } from '../../server/accounts/account-records';
import { createLogger } from '../../server/logger';
import { openDatabase } from '../../server/storage/postgres/database';
import { backendEnv, testBackend } from './shared-backends';
import { accountsDocument } from '../../server/accounts/accounts-document';
import { keysDocument } from '../../server/keys/keys-document';
import { openJsonDocument, openPostgresDocument } from '../../server/storage/document';

/**
 * What a data directory's state holds where it is kept — the JSON files in DATA_DIR, or on the shared backend its
 * PostgreSQL database and its Redis keys — read from there, not from a server's memory. For the contract tests'
 * "stored as", "never stored" and "nothing lost" assertions on either backend.
 */

/** The stored API key records of an account (status only matters to the tests), in the order they were created. */
export async function storedKeys(dataDir: string, accountId: string): Promise<{ status: string }[]> {
  if (testBackend() === 'json') {
    const file = JSON.parse(await readFile(path.join(dataDir, 'keys.json'), 'utf8')) as {
      keys: { account_id: string; status: string }[];
    };
    return file.keys.filter((k) => k.account_id === accountId);
  }
  return withDatabase(dataDir, async (client) => {
    const { rows } = await client.query<{ status: string }>(
      'SELECT status FROM api_keys WHERE account_id = $1 ORDER BY created_at, id',
      [accountId],
    );
    return rows;
  });
}

/** The stored accounts (id and email), as the admin CLI and the server left them. */
export async function storedAccounts(dataDir: string): Promise<{ id: string; email: string }[]> {
  if (testBackend() === 'json') {
    const file = JSON.parse(await readFile(path.join(dataDir, 'accounts.json'), 'utf8')) as {
      accounts: { id: string; email: string }[];
    };
    return file.accounts.map(({ id, email }) => ({ id, email }));
  }
  return withDatabase(dataDir, async (client) => {
    const { rows } = await client.query<{ id: string; email: string }>(
      'SELECT id, email FROM accounts ORDER BY created_at, id',
    );
    return rows;
  });
}

/**
 * Everything stored for `dataDir`, as one text to search: every file under DATA_DIR, and on the shared backend every
 * row of every table (as JSON) and every Redis key and value under the directory's prefix.
 */
export async function storedText(dataDir: string): Promise<string> {
  const parts: string[] = [];
  for (const entry of await readdir(dataDir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) parts.push(await readFile(path.join(entry.parentPath, entry.name), 'utf8'));
  }
  if (testBackend() === 'shared') {
    const env = await backendEnv(dataDir);
    parts.push(
      await withDatabase(dataDir, async (client) => {
        const { rows: tables } = await client.query<{ name: string }>(
          "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
        );
        const texts: string[] = [];
        for (const { name } of tables) {
          const { rows } = await client.query<{ row: string }>(
            `SELECT row_to_json(t)::text AS row FROM ${pg.escapeIdentifier(name)} t`,
          );
          texts.push(...rows.map((r) => r.row));
        }
        return texts.join('\n');
      }),
    );
    const redis = createClient({ url: env.REDIS_URL });
    await redis.connect();
    try {
      for await (const keys of redis.scanIterator({ MATCH: `${env.REDIS_KEY_PREFIX}*`, COUNT: 500 })) {
        for (const key of keys) {
          parts.push(key);
          const type = await redis.type(key);
          if (type === 'string') parts.push((await redis.get(key)) ?? '');
          else if (type === 'set') parts.push(...(await redis.sMembers(key)));
          else if (type === 'zset') parts.push(...(await redis.zRange(key, 0, -1)));
          else if (type === 'hash') parts.push(JSON.stringify(await redis.hGetAll(key)));
        }
      }
    } finally {
      await redis.close();
    }
  }
  return parts.join('\n');
}

async function withDatabase<T>(dataDir: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const { DATABASE_URL } = await backendEnv(dataDir);
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Changes the stored accounts as another process would (an older tool, a hand edit): through a store of its own on
 * the JSON file or the database, not through the server under test.
 */
export async function changeAccountsElsewhere(dataDir: string, change: Parameters<AccountStore['update']>[0]) {
  if (testBackend() === 'json') {
    const store = await openJsonDocument(accountsDocument, dataDir);
    try {
      await store.update(change);
    } finally {
      await store.close();
    }
    return;
  }
  const { DATABASE_URL } = await backendEnv(dataDir);
  const database = await openDatabase(DATABASE_URL!, { logger: createLogger('silent') });
  try {
    const store = await openPostgresDocument(accountsDocument, database);
    await store.update(change);
    await store.close();
  } finally {
    await database.close();
  }
}

/**
 * The accounts or keys document as stored, read afresh from accounts.json / keys.json or from the database (the
 * same shape either way: AccountsFile, KeysFile; the JSON file's `schema_version` only on the JSON backend).
 */
export async function storedDocument(dataDir: string, name: 'accounts' | 'keys'): Promise<Record<string, unknown>> {
  if (testBackend() === 'json') {
    return JSON.parse(await readFile(path.join(dataDir, `${name}.json`), 'utf8')) as Record<string, unknown>;
  }
  const { DATABASE_URL } = await backendEnv(dataDir);
  const database = await openDatabase(DATABASE_URL!, { logger: createLogger('silent') });
  try {
    const store =
      name === 'accounts'
        ? await openPostgresDocument(accountsDocument, database)
        : await openPostgresDocument(keysDocument, database);
    const document = structuredClone(store.current) as Record<string, unknown>;
    await store.close();
    return document;
  } finally {
    await database.close();
  }
}
