import { stat } from 'node:fs/promises';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from '../../logger';
import { migrateDatabase, SchemaTooNewError, type MigrateResult } from '../postgres/migrate';
import type { FeatureImporter } from './feature-importer';
import { describe, ImportError } from './import-error';
import { rowsInserted, type ImportCounts, type ImportReport } from './import-report';
import { ImportSkips } from './import-skips';

/**
 * `npm run admin -- migrate-json-to-postgres`: copies the state a DATA_DIR holds as JSON files into the PostgreSQL
 * schema of migrations/0001_initial.sql (issue #15), one feature at a time through its FeatureImporter.
 *
 * - The files are read first, all of them, with the readers the service uses, so that a file of an older schema
 *   version is upgraded and a bad one refused before the database is touched at all. A file that does not exist
 *   counts as empty and is not created.
 * - Then the schema is brought up to date (migrateDatabase) and everything is written in one transaction: any error
 *   rolls all of it back.
 * - A record the database cannot hold (a NUL or a lone surrogate in its text) or the service would refuse today (an
 *   address that cannot be normalised, a name with control characters) is left out with what depends on it, and
 *   reported (ImportSkips): one such record does not keep the others out.
 * - Nothing the database already holds is overwritten: rows are inserted with `ON CONFLICT (<primary key>) DO
 *   NOTHING` and counted as already present. Only the primary key is named, so any other conflict (an email that
 *   differs only in case from another account's, a second active key of an account, a key hash in use) is an error
 *   naming the record, not a silent skip.
 * - Rows without an id of their own (key actions, audit events) are compared by content, as multisets: the n-th copy
 *   of a row in the files counts as present when the table holds at least n identical rows. So a second run inserts
 *   nothing, and a run after the files grew inserts just what is new.
 * - Rows are inserted in file order, so rows that take a document position from a sequence (migration 0002) keep
 *   the order of the files' arrays (keys-archive.jsonl's older keys before keys.json's).
 * - The features are written in the order of the list they are given: a table that refers to another (keys,
 *   sessions, catchments and webhooks to accounts) comes after it.
 * - The data_version counters of the documents that changed are bumped in the same transaction, so that running
 *   servers reload them.
 */

export interface ImportOptions {
  logger: Pick<Logger, 'info' | 'warn'>;
}

/** Any feature's importer, as the list holds them (each reads what only its own write takes). */
export type AnyImporter = FeatureImporter<unknown, Partial<ImportCounts>>;

/**
 * Copies the JSON state of `dataDir` into the database of `pool` (see the module comment) through `importers`, in
 * their order: migrates the schema, then inserts in one transaction what the database does not have yet. Throws
 * ImportError (or SchemaTooNewError from the migration) with a one-line message when anything is wrong; the database
 * is then left as it was.
 */
export async function runImport(
  pool: Pool,
  dataDir: string,
  importers: readonly AnyImporter[],
  options: ImportOptions,
): Promise<ImportReport> {
  const snapshots = await readAll(dataDir, importers);
  let schema: MigrateResult;
  try {
    schema = await migrateDatabase(pool, { logger: options.logger });
  } catch (err) {
    // A newer schema says so in one line already; anything else (cannot connect, a migration failed) is wrapped.
    if (err instanceof SchemaTooNewError) throw err;
    throw new ImportError(`nothing was imported: ${describe(err)}`, { cause: err });
  }

  const client = await pool.connect().catch((err: unknown) => {
    throw new ImportError(`nothing was imported: ${describe(err)}`, { cause: err });
  });
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      const skips = new ImportSkips();
      const { counts, bumped } = await writeAll(client, importers, snapshots, skips);
      await client.query('COMMIT');
      return { dataDir, schema, ...counts, bumped, inserted: rowsInserted(counts), leftOut: skips.lines };
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      if (err instanceof ImportError) {
        throw new ImportError(`nothing was imported (rolled back): ${err.message}`, { cause: err.cause });
      }
      throw new ImportError(`nothing was imported (rolled back): ${describe(err)}`, { cause: err });
    }
  } finally {
    client.release(broken ?? false);
  }
}

/** Every importer's snapshot, in the list's order; any refusal is an ImportError before the database is touched. */
async function readAll(dataDir: string, importers: readonly AnyImporter[]): Promise<unknown[]> {
  try {
    if (!(await stat(dataDir)).isDirectory()) throw new ImportError(`DATA_DIR ${dataDir} is not a directory`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ImportError(`DATA_DIR ${dataDir} does not exist: nothing to import`);
    }
    throw err;
  }
  try {
    const snapshots: unknown[] = [];
    for (const importer of importers) snapshots.push(await importer.read(dataDir));
    return snapshots;
  } catch (err) {
    if (err instanceof ImportError) throw new ImportError(`nothing was imported: ${err.message}`, { cause: err });
    throw new ImportError(`nothing was imported: ${describe(err)}`, { cause: err });
  }
}

async function writeAll(
  client: PoolClient,
  importers: readonly AnyImporter[],
  snapshots: readonly unknown[],
  skips: ImportSkips,
): Promise<{ counts: ImportCounts; bumped: string[] }> {
  // The counters' row locks first, in name order: a store updating one of these documents meanwhile waits for the
  // import (and the import for it), as its updates wait for one another.
  const documents = importers.flatMap((importer) => (importer.document === null ? [] : [importer.document]));
  await client.query('SELECT name FROM data_version WHERE name = ANY($1) ORDER BY name FOR UPDATE', [documents]);
  const changed = new Set<string>();
  const counts: Partial<ImportCounts> = {};
  for (const [i, importer] of importers.entries()) {
    const written = await importer.write(client, snapshots[i], skips);
    Object.assign(counts, written.counts);
    if (written.changed && importer.document !== null) changed.add(importer.document);
  }

  const bumped = [...changed].sort();
  if (bumped.length > 0) {
    await client.query('UPDATE data_version SET version = version + 1, changed_at = now() WHERE name = ANY($1)', [
      bumped,
    ]);
  }
  // The list's importers fill every line of the report between them (IMPORTERS is checked so by the compiler).
  return { counts: counts as ImportCounts, bumped };
}
