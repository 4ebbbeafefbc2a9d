import type { Pool } from 'pg';
import { FileSessionStore, type SessionPolicy, type SessionStore } from './session-store';

export interface OpenSessionStoreOptions {
  /** DATA_DIR: the file store's sessions.json, when neither Redis nor PostgreSQL is configured. */
  dataDir: string;
  /** Idle and absolute timeouts and the clock they are judged on: the same for every backend. */
  policy: SessionPolicy;
  /** REDIS_URL and REDIS_KEY_PREFIX: sessions in Redis under `${keyPrefix}sess:`. Wins over `pool`. */
  redis?: {
    url: string;
    keyPrefix: string;
    /** Connection errors while the client reconnects by itself (called on every attempt: rate-limit the logging). */
    onError?: (err: Error) => void;
    /** Per command, before a request is answered 503 session_unavailable. Default 500 ms. */
    commandTimeoutMs?: number;
  };
  /** DATABASE_URL's pool: sessions in the `sessions` table. Not closed by the store. */
  pool?: Pool;
  /** The file store: a sessions.json written by another process could not be reloaded. */
  onReloadError?: (err: unknown) => void;
}

/**
 * The session store the configuration asks for: Redis when `redis` is given (every instance shares it; one connection
 * attempt at start, an Error naming the host when it fails, then reconnection for ever), else PostgreSQL's `sessions`
 * table when `pool` is given, else DATA_DIR/sessions.json (FileSessionStore, as a single instance always had it).
 *
 * The caller then does what it does with any store: listen to 'error' (failed writes of the file store, failed
 * touches of the shared ones), `purge()` at start and periodically (a no-op count 0 on Redis), `watch()` (only the
 * file store has anything to watch), and `close()` on shutdown (closes the Redis connection; never the pool).
 */
export async function openSessionStore(options: OpenSessionStoreOptions): Promise<SessionStore> {
  const { policy } = options;
  if (options.redis) {
    // Loaded only when used: single-instance servers never need the Redis client.
    const { RedisSessionStore } = await import('./redis-session-store');
    return RedisSessionStore.open({ ...options.redis, policy });
  }
  if (options.pool) {
    const { PostgresSessionStore } = await import('./postgres-session-store');
    return new PostgresSessionStore({ pool: options.pool, policy });
  }
  return FileSessionStore.open(options.dataDir, policy, options.onReloadError);
}
