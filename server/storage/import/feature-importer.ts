import { existsSync } from 'node:fs';
import path from 'node:path';
import type { PoolClient } from 'pg';
import { openJsonDocument, readOnce, type DocumentDeclaration } from '../document';
import type { ImportCounts } from './import-report';
import type { ImportSkips } from './import-skips';

/** What one importer's write did: its lines of the report, and whether its document changed. */
export interface Written<C extends Partial<ImportCounts>> {
  counts: C;
  /**
   * Whether the import changed the feature's document (rows inserted, a singleton updated): its data_version counter
   * is then bumped, so that running servers reload it.
   */
  changed: boolean;
}

/**
 * One feature's part of `npm run admin -- migrate-json-to-postgres`, beside the feature's stores: the import drives
 * every feature through this shape, reading all of them before the database is touched, then writing all of them
 * in one transaction.
 */
export interface FeatureImporter<S, C extends Partial<ImportCounts>> {
  /** The data_version counter of the feature's document; null for what no server holds in memory (the audit trail). */
  readonly document: string | null;
  /**
   * What DATA_DIR holds for the feature, read with the readers the service uses, so that a file of an older schema
   * version is upgraded and a bad one refused; a file that does not exist counts as empty and is not created. Throws
   * ImportError (or any error, described in one line) when a file is refused.
   */
  read(dataDir: string): Promise<S>;
  /**
   * Inserts, in the import's transaction, what the database does not have yet, in file order; what it has is left
   * alone and counted as already present. Each part runs as a `step` so that an error names it. A record the
   * database cannot hold or the service would refuse is left out and reported in `skips`, which also says what the
   * importers before this one left out (an account, an organisation, a subscription), so that what refers to it
   * stays out too.
   */
  write(client: PoolClient, snapshot: S, skips: ImportSkips): Promise<Written<C>>;
}

/**
 * The content of a document's JSON file through its store (upgraded, checked, its upkeep run: the keys' archive), or
 * undefined when there is no such file.
 */
export async function readStore<T extends object>(
  dataDir: string,
  declaration: DocumentDeclaration<T>,
): Promise<T | undefined> {
  // Opening a JsonStore creates a missing file with its defaults: a file that is not there is not opened.
  if (!existsSync(path.join(dataDir, declaration.file))) return undefined;
  return readOnce(() => openJsonDocument(declaration, dataDir));
}

/**
 * The `read` of a feature held in one document: its content through the store (readStore), or `empty` (never
 * modified: the importers only read their snapshots) when DATA_DIR has no such file.
 */
export function readStoreFile<T extends object, E>(
  declaration: DocumentDeclaration<T>,
  empty: E,
): (dataDir: string) => Promise<T | E> {
  return async (dataDir) => (await readStore(dataDir, declaration)) ?? empty;
}
