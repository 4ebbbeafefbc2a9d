import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from '../../logger';

/** One numbered SQL file of migrations/ (`0001_initial.sql`: version 1, name `initial`). */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** SHA-256 of the file, hex: recorded when applied, compared on later runs. */
  checksum: string;
}

export interface MigrateOptions {
  logger: Pick<Logger, 'info' | 'warn'>;
  /** The migrations to apply; by default those in the migrations directory. */
  migrations?: readonly Migration[];
}

export interface MigrateResult {
  /** Versions this call applied, in order (empty when the schema was up to date). */
  applied: number[];
  /** The schema version the database is at now. */
  version: number;
}

/** Raised when the database was migrated by a newer release than this one. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly databaseVersion: number,
    readonly knownVersion: number,
  ) {
    super(
      `database schema is at version ${databaseVersion}, this release knows up to ${knownVersion}: upgrade the service`,
    );
    this.name = 'SchemaTooNewError';
  }
}

/**
 * The key of the session-level advisory lock every instance takes while migrating, so that instances starting at
 * once apply each migration once: the others wait, then find nothing left to do. Any fixed bigint works; this one is
 * the first 8 bytes of SHA-256("disaster-telehealth-eligibility:schema_migrations"), as a signed 64-bit number.
 */
export const MIGRATION_LOCK_KEY = createHash('sha256')
  .update('disaster-telehealth-eligibility:schema_migrations')
  .digest()
  .readBigInt64BE(0)
  .toString();

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/**
 * Where the SQL files are: next to this module when it runs from source (tsx, tests); from the bundle
 * (.output/server/index.mjs), which has no such directory next to it, the source tree's copy under the working
 * directory.
 */
export function defaultMigrationsDir(): string {
  const candidates = [
    fileURLToPath(new URL('./migrations/', import.meta.url)),
    path.resolve('server/storage/postgres/migrations'),
  ];
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}

/** Reads the numbered SQL files of `dir`, in version order; versions must run 1, 2, 3… without gaps or repeats. */
export async function loadMigrations(dir = defaultMigrationsDir()): Promise<Migration[]> {
  const migrations: Migration[] = [];
  for (const file of await readdir(dir)) {
    if (!file.endsWith('.sql')) continue;
    const match = FILE_NAME.exec(file);
    if (!match) throw new Error(`migration file name not of the form 0001_name.sql: ${path.join(dir, file)}`);
    const sql = await readFile(path.join(dir, file), 'utf8');
    migrations.push({
      version: Number(match[1]),
      name: match[2]!,
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  migrations.sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new Error(`migrations in ${dir} must be numbered 1, 2, 3… without gaps: found version ${m.version}`);
    }
  });
  return migrations;
}

/**
 * Brings the database's schema up to the newest migration this release has, at start-up, before anything reads or
 * writes: under an advisory lock (one instance migrates, the others wait and then find nothing to do), each
 * migration in its own transaction together with its row in `schema_migrations` (a failed migration leaves nothing
 * behind, and is tried again on the next start). Running it again applies nothing.
 *
 * A database already at a newer version than this release knows (an older release started after a newer one
 * migrated) is refused with SchemaTooNewError: the older code would misread the newer schema.
 */
export async function migrateDatabase(pool: Pool, options: MigrateOptions): Promise<MigrateResult> {
  const { logger } = options;
  const migrations = options.migrations ?? (await loadMigrations());
  const known = migrations.at(-1)?.version ?? 0;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await lock(client, logger);
    try {
      return await migrateLocked(client, migrations, known, logger);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch((err: Error) => {
        // The lock lives as long as the connection: destroy it rather than return it to the pool still locked.
        broken = err;
      });
    }
  } catch (err) {
    // A connection whose state is unknown (lost mid-query, lock state unclear) is not returned to the pool.
    broken ??= err instanceof SchemaTooNewError ? undefined : (err as Error);
    throw err;
  } finally {
    client.release(broken ?? false);
  }
}

async function lock(client: PoolClient, logger: MigrateOptions['logger']): Promise<void> {
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [
    MIGRATION_LOCK_KEY,
  ]);
  if (rows[0]?.locked) return;
  logger.info('another instance is migrating the database schema: waiting for it');
  await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
}

async function migrateLocked(
  client: PoolClient,
  migrations: readonly Migration[],
  known: number,
  logger: MigrateOptions['logger'],
): Promise<MigrateResult> {
  await client.query(`
    CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      checksum   text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  const { rows } = await client.query<{ version: number; name: string; checksum: string }>(
    'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
  );
  const current = rows.at(-1)?.version ?? 0;
  if (current > known) throw new SchemaTooNewError(current, known);

  const done = new Map(rows.map((r) => [r.version, r]));
  for (const m of migrations) {
    const row = done.get(m.version);
    if (row && row.checksum !== m.checksum) {
      logger.warn(
        { version: m.version, name: m.name },
        'an applied migration file has changed since it was applied; the change is not applied (add a new migration)',
      );
    }
  }

  const applied: number[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    const started = Date.now();
    await client.query('BEGIN');
    try {
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        m.checksum,
      ]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw new Error(`database migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
    }
    applied.push(m.version);
    logger.info({ version: m.version, name: m.name, ms: Date.now() - started }, 'applied database migration');
  }
  return { applied, version: Math.max(current, ...applied) };
}
