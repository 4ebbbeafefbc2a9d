import { existsSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { DocumentStore } from './document-store';
import { JsonStore, SchemaJsonFile, type JsonStoreOptions } from './json-store';
import type { Database } from './postgres/database';
import type { DocumentCodec, PostgresDocumentStore } from './postgres/postgres-document-store';

/** How a document is kept in PostgreSQL tables: the codec's reading and writing, without its name and schema. */
export type TableCodec<T> = Omit<DocumentCodec<T>, 'name' | 'schema'>;

/**
 * One kind of document the service keeps, declared once by its feature: the JSON store (DATA_DIR/<file>), the
 * PostgreSQL store (its codec over the tables of its migration) and the import of the one into the other are all
 * derived from this, so adding a document type is this declaration plus its SQL migration.
 */
export interface DocumentDeclaration<T extends object> {
  /** The document's data_version row in PostgreSQL, and how it is named in messages. */
  readonly name: string;
  /** Its file in DATA_DIR. */
  readonly file: string;
  readonly schema: z.ZodType<T>;
  /** The JSON file's schema_version. */
  readonly version: number;
  /** migrations[n] turns a file body of schema n into n + 1 (files of older releases are upgraded when read). */
  readonly migrations?: JsonStoreOptions<z.ZodType<T>>['migrations'];
  readonly defaults: () => T;
  /** How often the JSON store looks for other processes' writes, when not JsonStore's default. */
  readonly watchIntervalMs?: number;
  /** Upkeep of the JSON file inside every write (the keys' archive of old revoked records). */
  readonly maintain?: (dataDir: string) => JsonStoreOptions<z.ZodType<T>>['maintain'];
  /**
   * The PostgreSQL codec, loaded only when DATABASE_URL is set (single-instance servers never load it). None for a
   * document PostgreSQL keeps as rows of its own, read per request rather than held whole (the catchments).
   */
  readonly postgres?: () => Promise<TableCodec<T>>;
}

function jsonOptions<T extends object>(declaration: DocumentDeclaration<T>, dataDir: string) {
  return {
    file: path.join(dataDir, declaration.file),
    schema: declaration.schema,
    version: declaration.version,
    defaults: declaration.defaults,
    migrations: declaration.migrations,
  };
}

/** The document as DATA_DIR's JSON file (created with the defaults when missing). */
export function openJsonDocument<T extends object>(
  declaration: DocumentDeclaration<T>,
  dataDir: string,
  onReloadError?: (err: unknown) => void,
): Promise<JsonStore<T>> {
  return JsonStore.open<z.ZodType<T>>({
    ...jsonOptions(declaration, dataDir),
    onReloadError,
    watchIntervalMs: declaration.watchIntervalMs,
    maintain: declaration.maintain?.(dataDir),
  });
}

/**
 * The content of DATA_DIR's file, upgraded and checked, without opening it as a store: null when there is no file.
 * Creates and writes nothing (the ingest's dry run, the JSON import).
 */
export async function readJsonDocument<T extends object>(
  declaration: DocumentDeclaration<T>,
  dataDir: string,
): Promise<T | null> {
  const options = jsonOptions(declaration, dataDir);
  if (!existsSync(options.file)) return null;
  return new SchemaJsonFile<T>(options).read();
}

/** The document in PostgreSQL's tables, shared by every instance (call `watch()` to follow their writes). */
export async function openPostgresDocument<T extends object>(
  declaration: DocumentDeclaration<T>,
  db: Pick<Database, 'pool' | 'versions'>,
): Promise<PostgresDocumentStore<T>> {
  if (!declaration.postgres) throw new Error(`${declaration.name} is not kept as a document in PostgreSQL`);
  const [{ PostgresDocumentStore }, codec] = await Promise.all([
    import('./postgres/postgres-document-store'),
    declaration.postgres(),
  ]);
  return PostgresDocumentStore.open(db, { ...codec, name: declaration.name, schema: declaration.schema });
}

/** A store opened for one read and closed after it. */
export async function readOnce<T>(open: () => Promise<DocumentStore<T>>): Promise<T> {
  const store = await open();
  try {
    return store.current;
  } finally {
    await store.close();
  }
}
