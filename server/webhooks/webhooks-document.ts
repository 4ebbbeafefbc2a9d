import type { DocumentDeclaration } from '../storage/document';
import { WebhooksFile } from './webhook-records';

/** Webhooks and their delivery queue: DATA_DIR/webhooks.json, or `webhooks` and `webhook_deliveries`. */
export const webhooksDocument: DocumentDeclaration<WebhooksFile> = {
  name: 'webhooks',
  file: 'webhooks.json',
  schema: WebhooksFile,
  version: 1,
  defaults: () => ({ webhooks: [], deliveries: [] }),
  // Polled quicker than the account files: another instance's claims and new deliveries matter within a second.
  watchIntervalMs: 500,
  postgres: () => import('./postgres-webhook-store').then((m) => m.webhooksCodec),
};
