import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AccountService } from './accounts/account-service';
import { logFailures } from './audit/audit-log';
import { openStorage } from './backends/registry';
import type { Config } from './config';
import { DeclarationRepository } from './declarations/declaration-repository';
import { ingestUserAgent } from './http-client/fetcher';
import { openKeys } from './keys/open-keys';
import { CloseStack, OpenFeatures, openAll } from './lifecycle';
import { createLogger } from './logger';
import type { AccountData, DataRuntime, Runtime, RuntimeOverrides, ServerRuntime } from './runtime-types';
import { openServer } from './server-runtime';
import { openTeam } from './team/open-team';
import { openSsoDepartures } from './sso/open-sso';

export type * from './runtime-types';
export { authOptionsFromConfig } from './server-runtime';

/**
 * The one place the process is wired: every service is built here, once, on one clock and one logger, over the
 * stores of the storage registry (backends/registry.ts, where the backend is chosen), in the server (index.ts), the
 * admin and ingest CLIs and the tests alike. Each feature is opened by its own `open*()` (in its folder), the same
 * for the server and the admin CLI; its closers are registered on one close stack as it opens (a start that fails
 * half-way closes what it had opened, and close() unwinds it in reverse), its jobs go to the server's background work.
 */
export function openRuntime(
  config: Config,
  overrides?: RuntimeOverrides & { purpose?: 'server' },
): Promise<ServerRuntime>;
export function openRuntime(config: Config, overrides: RuntimeOverrides & { purpose: 'admin' }): Promise<DataRuntime>;
export function openRuntime(config: Config, overrides: RuntimeOverrides & { purpose: 'ingest' }): Promise<Runtime>;
export async function openRuntime(config: Config, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const purpose = overrides.purpose ?? 'server';
  return openAll(new CloseStack(), async (stack) => {
    const base = await openBase(config, overrides, stack);
    if (purpose === 'ingest') return base;
    const features = new OpenFeatures(stack);
    const data = await openData(base, purpose, features);
    if (purpose === 'admin') return openAdmin(data, features);
    return openServer(data, overrides, features);
  });
}

async function openBase(config: Config, overrides: RuntimeOverrides, stack: CloseStack): Promise<Runtime> {
  const dataDir = path.resolve(config.DATA_DIR);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const clock = overrides.clock ?? (() => new Date());
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL);
  const purpose = overrides.purpose ?? 'server';
  const storage = await stack.open(
    'the storage',
    () =>
      openStorage(config, {
        logger,
        clock,
        // The server picks up other processes' writes (the admin CLI's, the ingest's, other instances'); a one-shot
        // CLI command need not.
        watch: purpose === 'server',
        applicationName: `dte-${purpose}`,
        redisClock: overrides.redisClock,
      }),
    (opened) => opened.close(),
  );
  return {
    config,
    dataDir,
    clock,
    logger,
    storage,
    database: storage.database,
    refreshSettings: {
      storage,
      baseUrl: config.DISASTERASSIST_BASE_URL,
      drfaCsvUrl: config.DRFA_CSV_URL,
      browser: { executablePath: config.CHROMIUM_PATH },
      minDeclarations: config.INGEST_MIN_DECLARATIONS,
      clock,
      fetcher: { userAgent: ingestUserAgent(config.INGEST_CONTACT) },
    },
    close: () => stack.close(),
  };
}

async function openData(base: Runtime, purpose: 'server' | 'admin', features: OpenFeatures): Promise<AccountData> {
  const { storage, clock, logger } = base;
  const [accountStore, keyStore, declarationStore, audit] = await Promise.all([
    storage.accounts(),
    storage.keys(),
    storage.declarations(),
    storage.audit(),
  ]);
  // A request's change has happened when its event is recorded: a failed audit write is logged, not answered with an
  // error. An admin command fails instead, for the operator to see.
  const recorder = purpose === 'server' ? logFailures(audit, logger) : audit;
  const accounts = new AccountService(accountStore, recorder, clock);
  return {
    ...base,
    accounts,
    keys: features.add(openKeys({ store: keyStore, accounts, audit: recorder, clock, logger })),
    declarations: new DeclarationRepository(declarationStore),
    audit,
    syncData: storage.syncData,
  };
}

/** The admin CLI's: the account data and the team rules over it (the server's team also ends sessions). */
function openAdmin(data: AccountData, features: OpenFeatures): DataRuntime {
  // The operator's removals are the team's too: single sign-on refuses the person until they are invited again.
  const sso = { departures: openSsoDepartures(data) };
  return { ...data, team: features.add(openTeam({ accounts: data.accounts, audit: data.audit, sso })) };
}
