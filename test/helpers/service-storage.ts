import { AccountService } from '../../server/accounts/account-service';
import type { AuditLog } from '../../server/audit/audit-log';
import { openStorage, type Storage } from '../../server/backends/registry';
import { createLogger } from '../../server/logger';
import { jsonStorage } from './json-storage';
import { backendEnv, testBackend } from './shared-backends';
import { tempDir } from './temp-dir';

/** The accounts document's owner over a fresh data directory's storage, and its audit trail, for service-level tests. */
export interface AccountsOnStorage {
  dataDir: string;
  storage: Storage;
  accounts: AccountService;
  audit: AuditLog;
  close(): Promise<void>;
}

/**
 * A fresh data directory's storage on the backend under test (test/helpers/shared-backends.ts): its JSON files
 * (jsonStorage), or on the shared backend its own PostgreSQL database; nothing watched. The services are then built
 * over it as the runtime builds them, without a server.
 */
export async function accountsOnStorage(clock: () => Date = () => new Date()): Promise<AccountsOnStorage> {
  const dataDir = await tempDir('dte-service-');
  const storage =
    testBackend() === 'json'
      ? jsonStorage(dataDir)
      : await openStorage(
          { DATA_DIR: dataDir, REDIS_KEY_PREFIX: '', ...(await backendEnv(dataDir)) },
          { logger: createLogger('silent'), clock, watch: false },
        );
  const audit = await storage.audit();
  const accounts = new AccountService(await storage.accounts(), audit, clock);
  return { dataDir, storage, accounts, audit, close: () => storage.close() };
}
