import { unwatchFile, watchFile, type Stats } from 'node:fs';
import { stat as statAsync } from 'node:fs/promises';
import { Low } from 'lowdb';
import type { z } from 'zod';
import { DurableJsonFile, removeOrphanedTempFiles } from './durable-json-file';
import { acquireOwnedLock, type OwnedLockOptions } from './owned-lock';

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

type Stored<T> = T & { schema_version: number };

// A holder that crashed is recognised at once by its pid (see owned-lock.ts); staleMs only matters for a holder
// that cannot be checked (another host). Writers wait up to 20 s for a live holder, as before.
const LOCK_OPTIONS: OwnedLockOptions = { staleMs: 10_000, updateMs: 2_000, waitMs: 20_000 };

/**
 * One JSON file in DATA_DIR, held in memory for reads and written by one writer at a time.
 *
 * Reads are served from memory, so the hot path never touches the disk. Every write, from this process or another
 * (the server and the admin CLI share the directory), runs under a cross-process lock on the file, re-reads the
 * file first if someone else changed it, applies the change to a copy and replaces the file atomically: no lost
 * update and no torn file. A process killed while holding the lock (or mid-write) delays nobody: the lock names its
 * holder and is taken over as soon as that process is gone (owned-lock.ts), and its temp file is removed. A polling
 * watcher picks up other processes' writes within `watchIntervalMs`.
 */
export class JsonStore<T extends object> {
  private data!: T;
  private fingerprint = '';
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(data: T) => void>();
  private readonly db: Low<Stored<T>>;
  private watching = false;
  private sweptOrphans = false;
  private readonly onFileChange = () => {
    void this.reloadIfChanged().catch((err) => this.options.onReloadError?.(err));
  };

  private constructor(private readonly options: JsonStoreOptions<z.ZodType<T>>) {
    this.db = new Low(new DurableJsonFile<Stored<T>>(options.file), null as unknown as Stored<T>);
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

  /** The current content. Treat it as read-only: change it through `update`. */
  get current(): T {
    return this.data;
  }

  onChange(listener: (data: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Applies `change` to a copy of the freshest content and writes it. If `change` throws, nothing is written and
   * the error propagates. Changes are applied one at a time, in call order.
   */
  update<R>(change: (draft: T) => R | Promise<R>): Promise<R> {
    return this.serialise(async () => {
      // At the path proper-lockfile used, so an older release sharing the directory still sees the lock.
      const lock = await acquireOwnedLock(`${this.options.file}.lock`, LOCK_OPTIONS);
      try {
        if (!this.sweptOrphans) {
          // Once per store, under the lock (so no live writer's temp file is touched): what a writer killed
          // mid-write left behind.
          this.sweptOrphans = true;
          await removeOrphanedTempFiles(this.options.file);
        }
        const { data, needsWrite } = await this.loadFromDisk();
        // Publish what was just read before running the change: if the change throws, the fingerprint already
        // matches the file, so the watcher would never re-read it and this store would serve stale data.
        if (data !== this.data) this.publish(data);
        const draft = structuredClone(data);
        const result = await change(draft);
        await this.options.maintain?.(draft);
        const changed = needsWrite || JSON.stringify(draft) !== JSON.stringify(data);
        if (changed) {
          const checked = this.options.schema.parse(draft) as T;
          this.db.data = { schema_version: this.options.version, ...checked } as Stored<T>;
          try {
            await this.db.write();
          } finally {
            this.releaseRaw();
          }
          this.fingerprint = await this.fingerprintOnDisk();
          this.publish(checked);
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
    watchFile(this.options.file, { interval: this.options.watchIntervalMs ?? 500, persistent: false }, this.onFileChange);
    return this;
  }

  /** Re-reads the file when another process has replaced it. Returns whether it did. */
  reloadIfChanged(): Promise<boolean> {
    return this.serialise(async () => {
      if ((await this.fingerprintOnDisk()) === this.fingerprint) return false;
      const { data } = await this.loadFromDisk();
      if (data !== this.data) this.publish(data);
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

  private publish(data: T): void {
    this.data = data;
    for (const listener of this.listeners) listener(data);
  }

  /** lowdb keeps what it last read or wrote; we hold the validated copy, so a second copy would only cost memory. */
  private releaseRaw(): void {
    this.db.data = null as unknown as Stored<T>;
  }

  /** The file's content when it changed since we last saw it, else what we hold. */
  private async loadFromDisk(): Promise<{ data: T; needsWrite: boolean }> {
    const fingerprint = await this.fingerprintOnDisk();
    if (this.data !== undefined && fingerprint === this.fingerprint) return { data: this.data, needsWrite: false };
    await this.db.read();
    const raw = this.db.data as unknown;
    this.releaseRaw();
    // Only a file we could read counts as seen: remembering the fingerprint of a refused file (newer release,
    // wrong shape) would make the next update() trust the cache and overwrite that file.
    const loaded = raw === null ? { data: this.options.defaults() as T, needsWrite: true } : this.upgrade(raw);
    this.fingerprint = fingerprint;
    return loaded;
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
    return { data: parsed.data as T, needsWrite: found !== this.options.version };
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

// A rename gives the file a new inode, so the inode alone would do; size and mtime guard odd file systems.
function fingerprintOf(s: Stats): string {
  return `${s.ino}:${s.size}:${s.mtimeMs}`;
}
