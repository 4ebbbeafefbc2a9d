import type { DocumentDeclaration } from '../storage/document';
import { UsageFile } from './usage-records';

/** Checks per key per day: DATA_DIR/usage.json. PostgreSQL keeps them as rows (PostgresUsage), so no codec. */
export const usageDocument: DocumentDeclaration<UsageFile> = {
  name: 'usage',
  file: 'usage.json',
  schema: UsageFile,
  version: 1,
  defaults: () => ({ rows: [] }),
};
