import { readStoreFile, type FeatureImporter } from '../storage/import/feature-importer';
import { step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { insertCounted } from '../storage/import/import-rows';
import { anyInserted } from '../storage/postgres/table-count';
import { WEBHOOK_DELIVERIES, WEBHOOKS } from './webhook-tables';
import { type WebhooksFile } from './webhook-records';
import { webhooksDocument } from './webhooks-document';

/** A column the import leaves NULL whatever the file holds. */
const none = (type: string) => ({ type, expression: 'NULL' });

/**
 * The part of `npm run admin -- migrate-json-to-postgres` for DATA_DIR/webhooks.json (tables of migration 0005): the
 * webhooks, then their queued deliveries, in file order, each left alone when the database already has its key (a
 * subscription's webhook set there keeps its URL and secret). Claims of the JSON server are dropped: any instance may
 * send an imported delivery. A webhook's queued_through (migration 0006) is not copied either: it starts NULL, with
 * no catch-up cursor, as this import has always written it.
 */
export const webhooksImporter: FeatureImporter<WebhooksFile, Pick<ImportCounts, 'webhooks' | 'webhookDeliveries'>> = {
  document: webhooksDocument.name,

  read: readStoreFile(webhooksDocument, { webhooks: [], deliveries: [] }),

  async write(client, data, skips) {
    // A webhook of a subscription left out goes with it, as does one whose URL the database cannot hold (reported);
    // their deliveries follow them.
    const webhookRows = skips.storable(
      'webhooks.json',
      data.webhooks.filter((w) => !skips.isLeftOut('subscription', w.subscription_id)),
      (w) => `the webhook of subscription ${w.subscription_id}`,
    );
    const kept = new Set(webhookRows.map((w) => w.subscription_id));
    const deliveries = data.deliveries.filter((d) => kept.has(d.subscription_id));
    const { webhooks, webhookDeliveries } = await step('webhooks', async () => ({
      webhooks: await insertCounted(client, WEBHOOKS, webhookRows, { queued_through: none('text') }),
      webhookDeliveries: await insertCounted(client, WEBHOOK_DELIVERIES, deliveries, {
        claimed_until: none('timestamptz'),
        claimed_by: none('text'),
      }),
    }));
    return { counts: { webhooks, webhookDeliveries }, changed: anyInserted(webhooks, webhookDeliveries) };
  },
};
