import type { Queryable } from './postgres/rows';

/**
 * A write that belongs with a document's update and must not outlive it, nor be lost from it (the update's audit
 * events): on PostgreSQL it runs in the update's transaction, on its client, so both are committed or neither; on the
 * JSON files (another file) it runs without one, under the document's lock, before the document is written, so no
 * change is ever on disk without it.
 */
export interface AlongsideWrite {
  write(transaction?: Queryable): Promise<void>;
}

/** What goes with an update, from its change's result; undefined: nothing. */
export type Alongside<R> = (result: R) => AlongsideWrite | undefined;

/**
 * What the services need of a place that keeps state: a snapshot to read from memory, an atomic read-modify-write,
 * and word of changes (made here or by another process). JsonStore, one JSON file in DATA_DIR, is the implementation
 * today; a database-backed one would run `update` as a transaction and call the listeners on commit.
 */
export interface DocumentStore<T> {
  /** The current content. Treat it as read-only: change it through `update`. */
  readonly current: T;
  /**
   * Applies `change` to a copy of the freshest content and keeps the result, all or nothing: when `change` throws,
   * nothing is written and the error propagates. Concurrent updates (from any process) never lose one another.
   * `alongside`, given the change's result, is written with it when the change changed the document (a failure of
   * either refuses both: see AlongsideWrite).
   */
  update<R>(change: (draft: T) => R | Promise<R>, alongside?: Alongside<R>): Promise<R>;
  onChange(listener: (data: T) => void): () => void;
  /** Starts picking up changes made by other processes. */
  watch(): void;
  /** Waits for pending writes and stops watching. */
  close(): Promise<void>;
}
