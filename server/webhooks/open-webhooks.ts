import type { Logger } from '../logger';
import type { Database } from '../storage/postgres/database';
import { openWebhookStore, type WebhookStore } from './webhook-records';
import { WebhookService, type WebhookTuning } from './webhook-service';

export interface OpenWebhooksOptions {
  dataDir: string;
  /** DATABASE_URL's database; null = DATA_DIR/webhooks.json. */
  database: Database | null;
  clock: () => Date;
  logger: Logger;
  /** WEBHOOK_ALLOW_PRIVATE_ADDRESSES. */
  allowPrivateAddresses: boolean;
  tuning?: WebhookTuning;
}

/**
 * The webhooks of a server process: their store (webhooks.json, or PostgreSQL's webhook tables of migration 0005),
 * watched for other processes' writes, and the service over it. The worker is started with `service.start()`;
 * `close()` stops it and closes the store.
 */
export async function openWebhooks(
  options: OpenWebhooksOptions,
): Promise<{ service: WebhookService; close(): Promise<void> }> {
  const { dataDir, database, clock, logger } = options;
  let store: WebhookStore;
  if (database) {
    const { openPostgresWebhookStore } = await import('./postgres-webhook-store');
    store = await openPostgresWebhookStore(database);
  } else {
    store = await openWebhookStore(dataDir, (err) =>
      logger.error({ err }, 'could not reload webhooks.json changed by another process'),
    );
  }
  store.watch();
  const service = new WebhookService({
    ...options.tuning,
    store,
    clock,
    logger,
    allowPrivateAddresses: options.allowPrivateAddresses,
  });
  return {
    service,
    async close() {
      await service.stop();
      await store.close();
    },
  };
}
