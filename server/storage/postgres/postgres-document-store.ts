import type pg from 'pg';
import type { z } from 'zod';
import type { Alongside, DocumentStore } from '../document-store';
import type { DataVersions, VersionedDocument } from './data-versions';
import type { Queryable } from './rows';
import { storageError } from './unavailable';

/**
 * How one document (what a JSON file held) is kept in tables: `load` reads it whole, `save` writes the difference
 * between two versions (rows inserted, updated, deleted by id; never rows `before` did not hold). Both run inside the
 * store's transaction, on its client.
 */
export interface DocumentCodec<T> {
  /** The document's row in data_version, whose counter orders its writers and tells every process it changed. */
  readonly name: string;
  readonly schema: z.ZodType<T>;
  load(client: Queryable): Promise<T>;
  save(client: Queryable, before: T, after: T): Promise<void>;
  /**
   * When the document loads only part of what its tables keep (the newest revoked keys, not all of them): what a load
   * would give of `written`, which is what the store then holds, so that every process holds the same content.
   */
  retained?(written: T): T;
}

/** A write refused by a unique constraint (a second active key for an account, an email taken by another account). */
export class UniqueViolationError extends Error {
  readonly code = '23505';
  constructor(
    readonly document: string,
    readonly constraint: string | undefined,
    options: { cause: unknown },
  ) {
    super(`${document}: ${(options.cause as Error).message}`, options);
    this.name = 'UniqueViolationError';
  }
}

const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';
const UNIQUE_VIOLATION = '23505';
const MAX_ATTEMPTS = 4;
/** Reloads a `catchUp` waits for before it gives up on a version it was told of (at most one was already running). */
const MAX_RELOADS = 3;

const BUMP_SQL =
  'UPDATE data_version SET version = version + 1, changed_at = now() WHERE name = $1 RETURNING version::text AS version';
const VERSION_SQL = 'SELECT version::text AS version FROM data_version WHERE name = $1';

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? (err as { code?: string }).code : undefined;
}

/**
 * A DocumentStore in PostgreSQL, shared by every instance: the document is held in memory for reads (`current`), as
 * JsonStore holds its file, and each table row of it is written by the one transaction of an `update`.
 *
 * An update first bumps the document's data_version row: that row's lock makes writers of the document, in any
 * process, take turns (what JsonStore's file lock does), and the number tells whether this process's copy is the
 * latest (if not, the transaction reloads it before the change runs). A change that throws or changes nothing
 * writes nothing and leaves the counter alone. The commit announces the new number (NOTIFY): the other instances
 * reload, in a snapshot that holds the counter and the tables together. Updates of one process run one at a time, in
 * call order.
 */
export class PostgresDocumentStore<T> implements DocumentStore<T>, VersionedDocument {
  private data!: T;
  private held = -1;
  private queue: Promise<unknown> = Promise.resolve();
  private reloading: Promise<void> | null = null;
  private readonly listeners = new Set<(data: T) => void>();
  private unregister: (() => void) | null = null;
  private closed = false;

  private constructor(
    private readonly db: { pool: pg.Pool; versions: DataVersions },
    private readonly codec: DocumentCodec<T>,
  ) {}

  /** Loads the document; `db` is openDatabase's. */
  static async open<T>(
    db: { pool: pg.Pool; versions: DataVersions },
    codec: DocumentCodec<T>,
  ): Promise<PostgresDocumentStore<T>> {
    const store = new PostgresDocumentStore(db, codec);
    // The four documents of migration 0001 have their row; another codec gets one here. (Inserted only when missing:
    // an insert that meets the existing row would wait for whichever instance is updating the document.)
    await db.pool.query(
      `INSERT INTO data_version (name) SELECT $1::text WHERE NOT EXISTS (SELECT 1 FROM data_version WHERE name = $1)
       ON CONFLICT (name) DO NOTHING`,
      [codec.name],
    );
    await store.reload();
    return store;
  }

  get name(): string {
    return this.codec.name;
  }

  /** The data_version of `current`. */
  get version(): number {
    return this.held;
  }

  get current(): T {
    return this.data;
  }

  onChange(listener: (data: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  update<R>(change: (draft: T) => R | Promise<R>, alongside?: Alongside<R>): Promise<R> {
    return this.serialise(async () => {
      for (let attempt = 1; ; attempt++) {
        let outcome: { result: R; committed: boolean };
        try {
          outcome = await this.transaction(change, alongside);
        } catch (err) {
          const code = errorCode(err);
          // The whole transaction again, the change included, on whatever the winner wrote.
          if ((code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED) && attempt < MAX_ATTEMPTS) continue;
          if (code === UNIQUE_VIOLATION) {
            throw new UniqueViolationError(this.codec.name, (err as { constraint?: string }).constraint, {
              cause: err,
            });
          }
          // The database went away: nothing was written and `current` is unchanged; the caller answers 503.
          throw storageError(err);
        }
        // Post-commit hook: the other instances are told (the data epoch, with Redis) before the caller is answered.
        if (outcome.committed) await this.db.versions.committed();
        return outcome.result;
      }
    });
  }

  /** Starts following other processes' commits (DataVersions) and makes `versions.sync()` wait for this store. */
  watch(): void {
    if (this.closed || this.unregister) return;
    this.unregister = this.db.versions.register(this);
    this.db.versions.listen();
  }

  async catchUp(version: number): Promise<void> {
    for (let reloads = 0; this.held < version && !this.closed; reloads++) {
      if (reloads >= MAX_RELOADS) {
        throw new Error(`${this.codec.name}: told of data_version ${version}, but reloading found ${this.held}`);
      }
      this.reloading ??= this.reload().finally(() => (this.reloading = null));
      await this.reloading;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unregister?.();
    this.unregister = null;
    await this.queue.catch(() => undefined);
    await this.reloading?.catch(() => undefined);
  }

  private async transaction<R>(
    change: (draft: T) => R | Promise<R>,
    alongside: Alongside<R> | undefined,
  ): Promise<{ result: R; committed: boolean }> {
    return this.withClient('BEGIN', async (client) => {
      const { rows } = await client.query<{ version: string }>(BUMP_SQL, [this.codec.name]);
      if (!rows[0]) throw new Error(`data_version has no row ${JSON.stringify(this.codec.name)}`);
      const version = Number(rows[0].version);
      if (version - 1 !== this.held) {
        // Another process wrote since we loaded. Under the row lock nobody else writes this document, so each
        // statement of the load sees the last committed version of it. Published even if the change throws.
        this.publish(this.codec.schema.parse(await this.codec.load(client)), version - 1, true);
      }
      const base = this.data;
      const draft = structuredClone(base);
      const result = await change(draft);
      if (JSON.stringify(draft) === JSON.stringify(base)) {
        await client.query('ROLLBACK');
        return { result, committed: false };
      }
      const checked = this.codec.schema.parse(draft);
      await this.codec.save(client, base, checked);
      await alongside?.(result)?.write(client);
      await client.query('COMMIT');
      this.publish(this.codec.retained ? this.codec.retained(checked) : checked, version);
      return { result, committed: true };
    });
  }

  /** Reads the counter and the document in one snapshot; keeps them if newer than what is held. */
  private reload(): Promise<void> {
    return this.withClient('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
      const { rows } = await client.query<{ version: string }>(VERSION_SQL, [this.codec.name]);
      if (!rows[0]) throw new Error(`data_version has no row ${JSON.stringify(this.codec.name)}`);
      const version = Number(rows[0].version);
      if (version <= this.held) {
        await client.query('COMMIT');
        return;
      }
      const data = this.codec.schema.parse(await this.codec.load(client));
      await client.query('COMMIT');
      this.publish(data, version);
    });
  }

  /**
   * Runs `work` in a transaction on a pooled client. On failure the transaction is rolled back; a client whose
   * rollback fails too (connection lost, state unknown) is destroyed instead of returned to the pool.
   */
  private async withClient<R>(begin: string, work: (client: pg.PoolClient) => Promise<R>): Promise<R> {
    const client = await this.db.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(begin);
      return await work(client);
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw err;
    } finally {
      client.release(broken ?? false);
    }
  }

  /** `certain`: read under the document's lock, so the latest, whatever this process held before. */
  private publish(data: T, version: number, certain = false): void {
    // A reload that read an older snapshot than an update's commit must not replace what the update wrote.
    if (version < this.held && !certain) return;
    this.data = data;
    this.held = version;
    for (const listener of this.listeners) listener(data);
  }

  private serialise<R>(task: () => Promise<R>): Promise<R> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
