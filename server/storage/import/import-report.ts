import { alignedTable } from '../../text-table';
import type { MigrateResult } from '../postgres/migrate';
import type { TableCount } from '../postgres/table-count';

/** What the importers count: each fills its lines (FeatureImporter), the report adds what the import as a whole did. */
export interface ImportCounts {
  accounts: TableCount;
  organisations: TableCount;
  members: TableCount;
  subscriptions: TableCount;
  /** accounts.json's pending invitations and password-reset links (their tokens' hashes). */
  invitations: TableCount;
  passwordResets: TableCount;
  /** accounts.json's pending e-mail verification links (their tokens' hashes). */
  emailVerifications: TableCount;
  /** accounts.json's Stripe events applied in the last 30 days (ids, for idempotency). */
  billingEvents: TableCount;
  /** keys.json and keys-archive.jsonl together (an id in both counts once). */
  apiKeys: TableCount & { fromArchive: number };
  keyActions: TableCount;
  auditEvents: TableCount;
  declarations: TableCount;
  declarationLgas: TableCount;
  declarationsLastUpdated: {
    inDataDir: string | null;
    /** The database's value before the import. */
    before: string | null;
    /** Whether the file's value was written (the database had none, or an older one). */
    updated: boolean;
  };
  ingestState: {
    /** Whether the DATA_DIR holds any ingest state (a file that is not all defaults). */
    inDataDir: boolean;
    /** Whether it was written (only into a database whose ingest state is still empty). */
    imported: boolean;
  };
  sessions: TableCount;
  /** catchments.json: the catchments and their alerts. */
  catchments: TableCount;
  catchmentAlerts: TableCount;
  /** webhooks.json: the webhooks and their queued deliveries. */
  webhooks: TableCount;
  webhookDeliveries: TableCount;
  /** usage.json: checks per key per day. */
  keyUsage: TableCount;
  /** sso.json: each organisation's single sign-on, the domains it claims, the team's departures. */
  ssoSettings: TableCount;
  ssoDomains: TableCount;
  ssoDepartures: TableCount;
}

export interface ImportReport extends ImportCounts {
  /** The directory read, as given. */
  dataDir: string;
  /** What migrateDatabase did before the import. */
  schema: MigrateResult;
  /** The data_version counters bumped (documents that changed), in name order. */
  bumped: string[];
  /** Rows inserted in all tables (declarations_meta and ingest_state not counted: they are updated, not inserted). */
  inserted: number;
  /** What was left out or imported otherwise than the files hold it, and why: one line each (ImportSkips). */
  leftOut: string[];
}

type TableName = { [K in keyof ImportCounts]: ImportCounts[K] extends TableCount ? K : never }[keyof ImportCounts];

/**
 * The report's tables as printed, with their names in the table. A group marked `optional` is listed only when
 * DATA_DIR has rows for it (older data directories have no catchments or webhooks; most have no pending links).
 */
const TABLES: readonly { optional: boolean; tables: readonly (readonly [label: string, name: TableName])[] }[] = [
  {
    optional: false,
    tables: [
      ['accounts', 'accounts'],
      ['organisations', 'organisations'],
      ['members', 'members'],
      ['subscriptions', 'subscriptions'],
      ['api keys', 'apiKeys'],
      ['key actions', 'keyActions'],
      ['audit events', 'auditEvents'],
      ['declarations', 'declarations'],
      ['declaration LGAs', 'declarationLgas'],
      ['sessions', 'sessions'],
    ],
  },
  {
    optional: true,
    tables: [
      ['invitations', 'invitations'],
      ['password resets', 'passwordResets'],
      ['e-mail verifications', 'emailVerifications'],
    ],
  },
  { optional: true, tables: [['billing events', 'billingEvents']] },
  {
    optional: true,
    tables: [
      ['catchments', 'catchments'],
      ['catchment alerts', 'catchmentAlerts'],
    ],
  },
  {
    optional: true,
    tables: [
      ['webhooks', 'webhooks'],
      ['webhook deliveries', 'webhookDeliveries'],
    ],
  },
  { optional: true, tables: [['key usage (days)', 'keyUsage']] },
  {
    optional: true,
    tables: [
      ['single sign-on', 'ssoSettings'],
      ['single sign-on domains', 'ssoDomains'],
      ['single sign-on departures', 'ssoDepartures'],
    ],
  },
];

/** Rows inserted in all the report's tables: the report's total. */
export function rowsInserted(counts: ImportCounts): number {
  return TABLES.flatMap((group) => group.tables).reduce((sum, [, name]) => sum + counts[name].inserted, 0);
}

/** The report as the admin CLI prints it: a table of counts per table, then the two singletons and the total. */
export function formatImportReport(report: ImportReport): string {
  const { schema, apiKeys } = report;
  const migrated = schema.applied.length > 0 ? `, migrations applied now: ${schema.applied.join(', ')}` : '';
  const rows = TABLES.filter(
    (group) => !group.optional || group.tables.some(([, name]) => report[name].inDataDir > 0),
  ).flatMap((group) =>
    group.tables.map(([label, name]) => {
      const c = report[name];
      return [label, String(c.inDataDir), String(c.inserted), String(c.alreadyPresent)];
    }),
  );
  const lines = [
    `Imported ${report.dataDir} into PostgreSQL (schema version ${schema.version}${migrated}).`,
    '',
    alignedTable(['TABLE', 'IN DATA_DIR', 'NEW', 'ALREADY PRESENT'], rows),
    '',
    ...(apiKeys.fromArchive > 0 ? [`api keys in DATA_DIR include ${apiKeys.fromArchive} from keys-archive.jsonl`] : []),
    `declarations last updated: ${lastUpdatedLine(report.declarationsLastUpdated)}`,
    `ingest state: ${ingestStateLine(report.ingestState)}`,
    report.bumped.length === 0
      ? 'Nothing new: 0 rows inserted, the database is unchanged.'
      : `${report.inserted} new rows in all.`,
    ...(report.leftOut.length === 0
      ? []
      : [
          '',
          'Left out (not counted above: fix them in DATA_DIR and run the import again), or imported changed:',
          ...report.leftOut,
        ]),
  ];
  return lines.join('\n');
}

function lastUpdatedLine(meta: ImportCounts['declarationsLastUpdated']): string {
  if (meta.inDataDir === null) return 'none in DATA_DIR';
  if (meta.updated) return `set to ${meta.inDataDir} (the database had ${meta.before ?? 'none'})`;
  return `kept the database's ${meta.before} (DATA_DIR's ${meta.inDataDir} is not newer)`;
}

function ingestStateLine(state: ImportCounts['ingestState']): string {
  if (!state.inDataDir) return 'none in DATA_DIR';
  if (state.imported) return 'imported';
  return "kept the database's (it already had one)";
}
