import type { AccountService } from '../accounts/account-service';
import type { AuditRecorder } from '../audit/audit-log';
import { every, type OpenedFeature } from '../lifecycle';
import type { Logger } from '../logger';
import { KeyService } from './key-service';
import type { KeyStore } from './key-records';

/** How often batched key usage (last_used_at) is written. */
const USAGE_FLUSH_MS = 15_000;

export interface KeysDeps {
  store: KeyStore;
  accounts: AccountService;
  audit: AuditRecorder;
  clock: () => Date;
  logger: Pick<Logger, 'error'>;
}

/** The API keys: their service, the job that writes their batched use, and the last write of it at stop. */
export function openKeys({ store, accounts, audit, clock, logger }: KeysDeps): OpenedFeature<KeyService> {
  const keys = new KeyService(store, accounts, audit, clock);
  return {
    service: keys,
    jobs: [
      every('key-usage', USAGE_FLUSH_MS, () => {
        keys.flushUsage().catch((err: unknown) => logger.error({ err }, 'could not record key usage'));
      }),
    ],
    // Written before the key store closes: the last few seconds of key use are not lost.
    closers: [{ name: 'batched key usage', close: () => keys.flushUsage() }],
  };
}
