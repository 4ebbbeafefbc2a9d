import type { DocumentDeclaration } from '../storage/document';
import { WebhooksFile } from './webhook-records';

/**
 * Webhooks and their delivery queue as one document: DATA_DIR/webhooks.json (DocumentWebhooks). PostgreSQL keeps them
 * as rows instead (PostgresWebhooks), so there is no codec.
 */
export const webhooksDocument: DocumentDeclaration<WebhooksFile> = {
  name: 'webhooks',
  file: 'webhooks.json',
  schema: WebhooksFile,
  version: 1,
  defaults: () => ({ webhooks: [], deliveries: [] }),
};
