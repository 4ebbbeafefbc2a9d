import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { AccountService } from './accounts/account-service';
import { openAccountStore } from './accounts/account-store';
import { DeclarationRepository } from './declarations/declaration-repository';
import { openDeclarationStore } from './declarations/declaration-store';
import { KeyService } from './keys/key-service';
import { openKeyStore } from './keys/key-store';

/** Everything that lives in DATA_DIR, opened once per process. The server and the admin CLI both use this. */
export interface DataServices {
  dataDir: string;
  accounts: AccountService;
  keys: KeyService;
  declarations: DeclarationRepository;
  /** Starts picking up other processes' writes (the server does; a one-shot CLI command need not). */
  watch(): void;
  /** Flushes batched writes and stops watching. */
  close(): Promise<void>;
}

export async function openDataServices(dataDir: string, logger: Logger): Promise<DataServices> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const onReloadError = (err: unknown) => logger.error({ err }, 'could not reload a data file changed by another process');
  const [accountStore, keyStore, declarationStore] = await Promise.all([
    openAccountStore(dataDir, onReloadError),
    openKeyStore(dataDir, onReloadError),
    openDeclarationStore(dataDir, onReloadError),
  ]);
  const accounts = new AccountService(accountStore);
  const keys = new KeyService(keyStore, accounts);
  const declarations = new DeclarationRepository(declarationStore);
  const stores = [accountStore, keyStore, declarationStore];
  return {
    dataDir,
    accounts,
    keys,
    declarations,
    watch: () => stores.forEach((s) => s.watch()),
    async close() {
      await keys.flushUsage();
      await Promise.all(stores.map((s) => s.close()));
    },
  };
}
