import { jsonStores, type Storage } from '../../server/backends/registry';
import { createLogger } from '../../server/logger';

/**
 * DATA_DIR's JSON files as the storage registry opens them for a one-shot process (nothing watched): what a refresh,
 * a correspondence load or a test's inspection reads and writes through.
 */
export function jsonStorage(dataDir: string, options: { lockStaleMs?: number } = {}): Storage {
  return jsonStores(dataDir, { logger: createLogger('silent'), clock: () => new Date(), watch: false, ...options });
}
