import { unwatchFile, watchFile, type Stats } from 'node:fs';
import { stat as statAsync } from 'node:fs/promises';
import { Low, type Adapter } from 'lowdb';
import type { z } from 'zod';
import { DurableJsonFile, removeOrphanedTempFiles } from './durable-json-file';
import { acquireOwnedLock, type OwnedLock, type OwnedLockOptions } from './owned-lock';
import type { Alongside } from './document-store';

/** Upgrades the body of a file written with schema version `from` to version `from + 1`. */
export type Migration = (data: Record<string, unknown>) => Record<string, unknown>;

export interface JsonStoreOptions<S extends z.ZodType<object>> {
  file: string;
  /** The shape of the file's body (without `schema_version`) at the current version. */
  schema: S;
  version: number;
  defaults: () => z.infer<S>;
  /** migrations[n] turns version n into n + 1; files written by older releases are upgraded, never discarded. */
  migrations?: Record<number, Migration>;
  /** How often to look for writes by another process (the admin CLI, `npm run ingest`). */
  watchIntervalMs?: number;
  onReloadError?: (err: unknown) => void;
  /**
   * Upkeep run inside every update (after the change, under the lock, the first load included), so that it holds
   * whichever process writes: e.g. moving old records out to keep the file small. What it changes is written.
   */
  maintain?: (draft: z.infer<S>) => void | Promise<void>;
}

export type SchemaFileOptions<T extends object> = Pick<
  JsonStoreOptions<z.ZodType<T>>,
  'file' | 'schema' | 'version' | 'defaults' | 'migrations'
>;

type Stored<T> = T & { schema_version: number };

// A holder that crashed is recognised at once by its pid (see owned-lock.ts); staleMs only matters for a holder
// that cannot be checked (another host). Writers wait up to 20 s for a live holder, as before.
const LOCK_OPTIONS: OwnedLockOptions = { staleMs: 10_000, updateMs: 2_000, waitMs: 20_000 };

/**
 * The lowdb adapter of a JsonStore file: what lowdb reads and writes is the file's body at the current schema
 * version, checked by its zod schema. Underneath, DurableJsonFile does the I/O (whole-file atomic replacement,
 * fsynced; lowdb's own JSONFile neither fsyncs nor gives each process its own temp file), much as lowdb's DataFile
 * puts a format over its TextFile.
 *
 * - `read()` upgrades a file written by an older release through the migrations, validates it, and gives the file's
 *   defaults when there is no file; in both cases `needsWrite` says the file must be (re)written at this version. A
 *   file it cannot read (not JSON, wrong shape, written by a newer release) is refused with an error naming it, and
 *   left untouched.
 * - `validate(data)` checks content against the schema and returns zod's output, the copy to hold and to write;
 *   `write(data)` stamps `schema_version` on it and replaces the file. Content that did not come from `validate` (a
 *   caller of `Low#write`) is validated on the way, so nothing unchecked reaches the disk, and nothing is checked twice.
 * - `lock()` takes the file's cross-process, owner-aware lock (owned-lock.ts); read-modify-write cycles run under it.
 * - `changed()` tells whether the file is no longer the one this adapter last read or wrote (another writer replaced
 *   it), from its inode, size and mtime, without reading it.
 */
export class SchemaJsonFile<T extends object> implements Adapter<T> {
  /** After `read()`: whether what it gave must be written back (there was no file, or an older schema version). */
  needsWrite = false;
  private readonly raw: DurableJsonFile<unknown>;
  /** Copies `validate` produced (weakly held: a copy that was never written is not kept alive by this). */
  private readonly validated = new WeakSet<object>();
  /** The fingerprint of the file as last read or written here; '' before the first read. */
  private seen = '';
  private sweptOrphans = false;

  constructor(private readonly options: SchemaFileOptions<T>) {
    this.raw = new DurableJsonFile<unknown>(options.file);
  }

  get file(): string {
    return this.options.file;
  }

  async read(): Promise<T> {
    const fingerprint = await this.fingerprintOnDisk();
    const raw = await this.raw.read();
    const { data, needsWrite } = raw === null ? { data: this.options.defaults(), needsWrite: true } : this.upgrade(raw);
    // Only a file we could read counts as seen: remembering the fingerprint of a refused file (newer release, wrong
    // shape) would make the next update trust what it holds and overwrite that file.
    this.seen = fingerprint;
    this.needsWrite = needsWrite;
    return data;
  }

  /** The schema's output for `data` (throws zod's error when it does not match): the copy to hold and to write. */
  validate(data: unknown): T {
    const checked = this.options.schema.parse(data);
    this.validated.add(checked);
    return checked;
  }

  async write(data: T): Promise<void> {
    const body = this.validated.has(data) ? data : this.validate(data);
    const stored: Stored<T> = { schema_version: this.options.version, ...body };
    await this.raw.write(stored);
    this.seen = await this.fingerprintOnDisk();
    this.needsWrite = false;
  }

  async changed(): Promise<boolean> {
    return (await this.fingerprintOnDisk()) !== this.seen;
  }

  /**
   * Takes the file's lock, at the path proper-lockfile used, so an older release sharing the directory still sees it.
   * The first time, also removes the temp files of writers killed mid-write: only under the lock is no live writer's
   * temp file touched.
   */
  async lock(): Promise<OwnedLock> {
    const lock = await acquireOwnedLock(`${this.options.file}.lock`, LOCK_OPTIONS);
    if (!this.sweptOrphans) {
      this.sweptOrphans = true;
      try {
        await removeOrphanedTempFiles(this.options.file);
      } catch (err) {
        await lock.release();
        throw err;
      }
    }
    return lock;
  }

  private upgrade(raw: unknown): { data: T; needsWrite: boolean } {
    const file = this.options.file;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new Error(`${file} does not hold a JSON object; it was left untouched`);
    }
    const { schema_version: found = 1, ...body } = raw as Record<string, unknown>;
    if (typeof found !== 'number' || !Number.isInteger(found) || found < 1) {
      throw new Error(`${file} has an unreadable schema_version; it was left untouched`);
    }
    if (found > this.options.version) {
      throw new Error(
        `${file} was written by a newer release (schema ${found}, this release reads up to ${this.options.version}); upgrade instead`,
      );
    }
    let upgraded: Record<string, unknown> = body;
    for (let v = found; v < this.options.version; v++) {
      const migrate = this.options.migrations?.[v];
      if (!migrate) throw new Error(`${file}: no migration from schema ${v} to ${v + 1}`);
      upgraded = migrate(upgraded);
    }
    const parsed = this.options.schema.safeParse(upgraded);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      throw new Error(`${file} does not match schema ${this.options.version}; it was left untouched: ${problems}`);
    }
    return { data: parsed.data, needsWrite: found !== this.options.version };
  }

  private async fingerprintOnDisk(): Promise<string> {
    try {
      return fingerprintOf(await statAsync(this.options.file));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
      throw err;
    }
  }
}

/**
 * One JSON file in DATA_DIR, held in memory for reads and written by one writer at a time.
 *
 * lowdb holds the content: `Low.data` is the one validated copy this process serves (`current`), read and written
 * through SchemaJsonFile above. Reads are served from memory, so the hot path never touches the disk. Every write,
 * from this process or another (the server and the admin CLI share the directory), runs under a cross-process lock
 * on the file, re-reads the file first if someone else changed it, applies the change to a copy and replaces the
 * file atomically: no lost update and no torn file. A process killed while holding the lock (or mid-write) delays
 * nobody: the lock names its holder and is taken over as soon as that process is gone (owned-lock.ts), and its temp
 * file is removed. A polling watcher picks up other processes' writes within `watchIntervalMs`.
 */
export class JsonStore<T extends object> {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(data: T) => void>();
  private readonly adapter: SchemaJsonFile<T>;
  private readonly db: Low<T>;
  private watching = false;
  private readonly onFileChange = () => {
    void this.reloadIfChanged().catch((err) => this.options.onReloadError?.(err));
  };

  private constructor(private readonly options: JsonStoreOptions<z.ZodType<T>>) {
    this.adapter = new SchemaJsonFile<T>(options);
    // Until open() has read the file, nobody holds the store; the defaults only satisfy Low's constructor.
    this.db = new Low<T>(this.adapter, options.defaults());
  }

  static async open<S extends z.ZodType<object>>(options: JsonStoreOptions<S>): Promise<JsonStore<z.infer<S>>> {
    const store = new JsonStore<z.infer<S>>(options as unknown as JsonStoreOptions<z.ZodType<z.infer<S>>>);
    // The first load may have to create or migrate the file, so it writes under the lock like any other change.
    await store.update(() => undefined);
    return store;
  }

  get file(): string {
    return this.options.file;
  }

  /** The current content (lowdb's `data`). Treat it as read-only: change it through `update`. */
  get current(): T {
    return this.db.data;
  }

  onChange(listener: (data: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Applies `change` to a copy of the freshest content and writes it. If `change` throws, nothing is written and
   * the error propagates. Changes are applied one at a time, in call order.
   */
  update<R>(change: (draft: T) => R | Promise<R>, alongside?: Alongside<R>): Promise<R> {
    return this.serialise(async () => {
      const lock = await this.adapter.lock();
      try {
        // Read what another writer left before running the change, and publish it: if the change throws, the
        // adapter has already seen the file, so the watcher would never re-read it and this store would go stale.
        let needsWrite = false;
        if (await this.adapter.changed()) {
          await this.db.read();
          needsWrite = this.adapter.needsWrite;
          this.notify();
        }
        const base = this.db.data;
        const draft = structuredClone(base);
        const result = await change(draft);
        await this.options.maintain?.(draft);
        const changed = JSON.stringify(draft) !== JSON.stringify(base);
        // Another file: not one write with the document, so first — a change is never on disk without it.
        if (changed) await alongside?.(result)?.write();
        if (needsWrite || changed) {
          const checked = this.adapter.validate(draft);
          // Written by Low's adapter before Low holds it (Low#write writes what Low already holds): readers of
          // `current` never see content that is not on disk yet, nor keep seeing it when the write fails.
          await this.adapter.write(checked);
          this.db.data = checked;
          this.notify();
        }
        return result;
      } finally {
        await lock.release();
      }
    });
  }

  /** Starts polling the file for writes made by other processes. */
  watch(): this {
    if (this.watching) return this;
    this.watching = true;
    watchFile(
      this.options.file,
      { interval: this.options.watchIntervalMs ?? 500, persistent: false },
      this.onFileChange,
    );
    return this;
  }

  /** Re-reads the file when another process has replaced it. Returns whether it did. */
  reloadIfChanged(): Promise<boolean> {
    return this.serialise(async () => {
      if (!(await this.adapter.changed())) return false;
      await this.db.read();
      this.notify();
      return true;
    });
  }

  /** Waits for pending writes, then stops watching. */
  async close(): Promise<void> {
    // With the listener: unwatchFile(file) alone would also stop every other store watching the same file.
    if (this.watching) unwatchFile(this.options.file, this.onFileChange);
    this.watching = false;
    await this.queue.catch(() => undefined);
  }

  private serialise<R>(task: () => Promise<R>): Promise<R> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private notify(): void {
    for (const listener of this.listeners) listener(this.db.data);
  }
}

// A rename gives the file a new inode, so the inode alone would do; size and mtime guard odd file systems.
function fingerprintOf(s: Stats): string {
  return `${s.ino}:${s.size}:${s.mtimeMs}`;
}
