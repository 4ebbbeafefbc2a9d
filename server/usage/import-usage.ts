import { readStoreFile, type FeatureImporter } from '../storage/import/feature-importer';
import { step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { insertCounted, type ImportTarget } from '../storage/import/import-rows';
import { usageDocument } from './usage-document';
import type { UsageFile } from './usage-records';

/** The table `key_usage` (migrations 0012, 0017) as the import fills it. */
const KEY_USAGE: ImportTarget = {
  table: 'key_usage',
  key: 'key_id, day',
  columns: [
    { name: 'subscription_id', type: 'text' },
    { name: 'key_id', type: 'text' },
    { name: 'day', type: 'date' },
    { name: 'answered', type: 'integer' },
    { name: 'refused', type: 'integer' },
    { name: 'rate_limited', type: 'integer' },
    { name: 'batch_rows', type: 'integer' },
  ],
};

/**
 * DATA_DIR/usage.json into `key_usage`: each key's day left alone when the database already counts it (a day is
 * never split between the two: the JSON server stops before its data is imported). No server holds usage in memory,
 * so no data_version counter is bumped.
 */
export const usageImporter: FeatureImporter<UsageFile, Pick<ImportCounts, 'keyUsage'>> = {
  document: null,
  read: readStoreFile(usageDocument, { rows: [] }),
  async write(client, file, skips) {
    const rows = file.rows.filter((r) => !skips.isLeftOut('subscription', r.subscription_id));
    const keyUsage = await step('key usage', () => insertCounted(client, KEY_USAGE, rows));
    return { counts: { keyUsage }, changed: false };
  },
};
