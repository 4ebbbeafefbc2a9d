import type { Pool } from 'pg';
import { accountsImporter } from './accounts/import-accounts';
import { auditImporter } from './audit/import-audit';
import { catchmentsImporter } from './catchment/import-catchments';
import { declarationsImporter } from './declarations/import-declarations';
import { ingestStateImporter } from './ingest/import-ingest-state';
import { keysImporter } from './keys/import-keys';
import { sessionsImporter } from './sessions/import-sessions';
import type { FeatureImporter } from './storage/import/feature-importer';
import { runImport, type ImportOptions } from './storage/import/import-data-dir';
import type { ImportCounts, ImportReport } from './storage/import/import-report';
import { webhooksImporter } from './webhooks/import-webhooks';
import { usageImporter } from './usage/import-usage';
import { ssoImporter } from './sso/import-sso';

/**
 * Every feature's importer, in the order the import writes them: accounts first, since keys, sessions, catchments and
 * webhooks refer to them. It sits here, above the features, because each importer is built on the storage library
 * (server/storage/import), which therefore cannot import them.
 */
export const IMPORTERS = [
  accountsImporter,
  keysImporter,
  sessionsImporter,
  auditImporter,
  declarationsImporter,
  ingestStateImporter,
  catchmentsImporter,
  webhooksImporter,
  usageImporter,
  ssoImporter,
] as const;

// Every line of the report is some importer's: a line no importer fills fails to compile here.
type Filled<I> = I extends FeatureImporter<infer _S, infer C> ? keyof C : never;
const complete: [Exclude<keyof ImportCounts, Filled<(typeof IMPORTERS)[number]>>] extends [never] ? true : never = true;
void complete;

/**
 * `npm run admin -- migrate-json-to-postgres`: copies the JSON state of `dataDir` into the database of `pool` through
 * IMPORTERS (see runImport). Throws ImportError (or SchemaTooNewError) in one line; the database is then unchanged.
 */
export function importDataDir(pool: Pool, dataDir: string, options: ImportOptions): Promise<ImportReport> {
  return runImport(pool, dataDir, IMPORTERS, options);
}
