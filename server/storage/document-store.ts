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
   */
  update<R>(change: (draft: T) => R | Promise<R>): Promise<R>;
  onChange(listener: (data: T) => void): () => void;
  /** Starts picking up changes made by other processes. */
  watch(): void;
  /** Waits for pending writes and stops watching. */
  close(): Promise<void>;
}
