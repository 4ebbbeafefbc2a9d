import path from 'node:path';
import { acquireOwnedLock, LockBusyError } from '../storage/owned-lock';

/** A held refresh lock. */
export interface HeldLock {
  release(): Promise<void>;
}

/** Takes the lock that keeps refreshes from overlapping; null when another refresh holds it. */
export type IngestLock = () => Promise<HeldLock | null>;

/**
 * A refresh that crashed leaves its lock behind. On this host it is taken over at once, its process being gone
 * (owned-lock.ts); a holder that cannot be checked (another host sharing DATA_DIR) loses it once it has not been
 * refreshed for this long.
 */
export const LOCK_STALE_MS = 30_000;

/** DATA_DIR/ingest.lock, owner-aware (owned-lock.ts), for the processes sharing one data directory. */
export function ingestFileLock(dataDir: string, lockStaleMs: number = LOCK_STALE_MS): IngestLock {
  return async () => {
    const stale = Math.max(2_000, lockStaleMs);
    try {
      return await acquireOwnedLock(path.join(dataDir, 'ingest.lock'), {
        staleMs: stale,
        updateMs: Math.floor(stale / 3),
      });
    } catch (err) {
      // Only a live holder means busy; anything else (a permission problem, say) is reported as what it is.
      if (err instanceof LockBusyError) return null;
      throw err;
    }
  };
}
