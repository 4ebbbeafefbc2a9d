import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { z } from 'zod';
import { openAccountStore, type AccountsFile } from '../accounts/account-store';
import type { CatchmentsFile } from '../catchment/catchment-records';
import { openCatchmentStore } from '../catchment/catchment-store';
import { importCatchments } from '../catchment/import-catchments';
import { importWebhooks } from '../webhooks/import-webhooks';
import { openWebhookStore, type WebhooksFile } from '../webhooks/webhook-records';
import { JsonLinesAuditLog, redactKeys, type AuditEvent, type AuditEventType } from '../audit/audit-log';
import { openDeclarationStore, type DeclarationsFile } from '../declarations/declaration-store';
import { openIngestStateStore, type IngestStateFile } from '../ingest/ingest-state';
import { openKeyStore } from '../keys/key-store';
import { ApiKeyRecord, type KeysFile } from '../keys/key-records';
import type { Logger } from '../logger';
import { SessionsFile } from '../sessions/session-store';
import { alignedTable } from '../text-table';
import { SchemaJsonFile } from '../storage/json-store';
import { tableCount, type TableCount } from '../storage/postgres/table-count';
import { migrateDatabase, SchemaTooNewError, type MigrateResult } from '../storage/postgres/migrate';

/**
 * `npm run admin -- migrate-json-to-postgres`: copies the state a DATA_DIR holds as JSON files into the PostgreSQL
 * schema of migrations/0001_initial.sql (issue #15).
 *
 * - The files are read first, all of them, with the readers the service uses (JsonStore through openAccountStore,
 *   openKeyStore, openDeclarationStore, openIngestStateStore; SchemaJsonFile with the sessions schema;
 *   JsonLinesAuditLog), so a file of an older schema version is upgraded and a bad one refused before the database
 *   is touched at all. A file that does not exist counts as empty and is not created.
 * - Then the schema is brought up to date (migrateDatabase) and everything is written in one transaction: any error
 *   rolls all of it back.
 * - Nothing the database already holds is overwritten: rows are inserted with `ON CONFLICT (<primary key>) DO
 *   NOTHING` and counted as already present. Only the primary key is named, so any other conflict (an email that
 *   differs only in case from another account's, a second active key of an account, a key hash in use) is an error
 *   naming the record, not a silent skip.
 * - Rows without an id of their own (key actions, audit events) are compared by content, as multisets: the n-th copy
 *   of a row in the files counts as present when the table holds at least n identical rows. So a second run inserts
 *   nothing, and a run after the files grew inserts just what is new.
 * - Rows are inserted in file order, so rows that take a document position from a sequence (migration 0002) keep
 *   the order of the files' arrays (keys-archive.jsonl's older keys before keys.json's).
 * - The data_version counters of the documents that changed are bumped in the same transaction, so that running
 *   servers reload them.
 */

export type { TableCount } from '../storage/postgres/table-count';

export interface ImportReport {
  /** The directory read, as given. */
  dataDir: string;
  /** What migrateDatabase did before the import. */
  schema: MigrateResult;
  accounts: TableCount;
  subscriptions: TableCount;
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
  /** The data_version counters bumped (documents that changed), in name order. */
  bumped: string[];
  /** Rows inserted in all tables (declarations_meta and ingest_state not counted: they are updated, not inserted). */
  inserted: number;
}

export interface ImportOptions {
  logger: Pick<Logger, 'info' | 'warn'>;
}

/** A failure of the import, one line that says what to fix: the database was left as it was. */
export class ImportError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ImportError';
  }
}

/** Rows per statement: large enough to be quick, small enough to keep each statement's parameter a few megabytes. */
const BATCH = 5_000;

/** The names of data_version counters the import may bump. `sessions` has none in schema 1; bumped if one exists. */
const DOCUMENTS = ['accounts', 'catchments', 'declarations', 'ingest_state', 'keys', 'sessions', 'webhooks'] as const;
type DocumentName = (typeof DOCUMENTS)[number];

const AUDIT_EVENT_TYPES = [
  'account_created',
  'login',
  'login_failed',
  'logout',
  'key_generated',
  'key_regenerated',
  'key_revoked',
  'subscription_changed',
] as const satisfies readonly AuditEventType[];

/** An audit.jsonl line as JsonLinesAuditLog writes it: checked here, since its reader only parses JSON. */
const AuditLine = z.object({
  at: z.string(),
  event: z.enum(AUDIT_EVENT_TYPES),
  source: z.enum(['web', 'admin']),
  account_id: z.string().nullish(),
  email: z.string().nullish(),
  ip: z.string().optional(),
  key_prefix: z.string().optional(),
  reason: z.string().optional(),
  subscription: z
    .object({
      status: z.enum(['active', 'inactive']),
      expires_at: z.string().nullable(),
      rate_limit: z.number().int(),
    })
    .optional(),
});

/** What the DATA_DIR holds, read and checked. */
interface Snapshot {
  accounts: AccountsFile;
  keys: KeysFile;
  /** Records of keys-archive.jsonl whose id is not in keys.json (an id's first line). */
  archivedKeys: ApiKeyRecord[];
  audit: z.infer<typeof AuditLine>[];
  declarations: DeclarationsFile;
  ingestState: IngestStateFile | null;
  sessions: SessionsFile;
  catchments: CatchmentsFile | null;
  webhooks: WebhooksFile | null;
}

/**
 * Copies the JSON state of `dataDir` into the database of `pool` (see the module comment): migrates the schema, then
 * inserts in one transaction what the database does not have yet. Throws ImportError (or SchemaTooNewError from the
 * migration) with a one-line message when anything is wrong; the database is then left as it was.
 */
export async function importDataDir(pool: Pool, dataDir: string, options: ImportOptions): Promise<ImportReport> {
  const snapshot = await readDataDir(dataDir);
  let schema: MigrateResult;
  try {
    schema = await migrateDatabase(pool, { logger: options.logger });
  } catch (err) {
    // A newer schema says so in one line already; anything else (cannot connect, a migration failed) is wrapped.
    if (err instanceof SchemaTooNewError) throw err;
    throw new ImportError(`nothing was imported: ${describe(err)}`, { cause: err });
  }

  const client = await pool.connect().catch((err: unknown) => {
    throw new ImportError(`nothing was imported: ${describe(err)}`, { cause: err });
  });
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      const report = await write(client, snapshot, dataDir, schema);
      await client.query('COMMIT');
      return report;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      if (err instanceof ImportError) {
        throw new ImportError(`nothing was imported (rolled back): ${err.message}`, { cause: err.cause });
      }
      throw new ImportError(`nothing was imported (rolled back): ${describe(err)}`, { cause: err });
    }
  } finally {
    client.release(broken ?? false);
  }
}

// Reading -----------------------------------------------------------------------------------------------------------

async function readDataDir(dataDir: string): Promise<Snapshot> {
  try {
    if (!(await stat(dataDir)).isDirectory()) throw new ImportError(`DATA_DIR ${dataDir} is not a directory`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ImportError(`DATA_DIR ${dataDir} does not exist: nothing to import`);
    }
    throw err;
  }
  try {
    const accounts = (await readStore(dataDir, 'accounts.json', openAccountStore)) ?? {
      accounts: [],
      subscriptions: [],
    };
    // Opening the key store may move old revoked records to the archive (its upkeep): read the archive after it.
    const keys = (await readStore(dataDir, 'keys.json', openKeyStore)) ?? { keys: [], key_actions: {} };
    const inKeysFile = new Set(keys.keys.map((k) => k.id));
    const archivedKeys = (await readKeyArchive(path.join(dataDir, 'keys-archive.jsonl'))).filter(
      (k) => !inKeysFile.has(k.id),
    );
    const declarations = (await readStore(dataDir, 'declarations.json', openDeclarationStore)) ?? {
      last_updated: null,
      declarations: [],
    };
    const ingestState = (await readStore(dataDir, 'ingest-state.json', openIngestStateStore)) ?? null;
    const catchments = (await readStore(dataDir, 'catchments.json', openCatchmentStore)) ?? null;
    const webhooks = (await readStore(dataDir, 'webhooks.json', openWebhookStore)) ?? null;
    const sessions = await readSessions(path.join(dataDir, 'sessions.json'));
    const audit = await readAudit(dataDir);
    for (const key of [...keys.keys, ...archivedKeys]) {
      if ((key.status === 'revoked') !== (key.revoked_at !== null)) {
        throw new ImportError(`API key ${key.id}: status ${key.status} but revoked_at ${key.revoked_at ?? 'null'}`);
      }
    }
    return { accounts, keys, archivedKeys, audit, declarations, ingestState, sessions, catchments, webhooks };
  } catch (err) {
    if (err instanceof ImportError) throw new ImportError(`nothing was imported: ${err.message}`, { cause: err });
    throw new ImportError(`nothing was imported: ${describe(err)}`, { cause: err });
  }
}

/** The content of a JsonStore file through its store (upgraded, checked), or undefined when there is no such file. */
async function readStore<T extends object>(
  dataDir: string,
  name: string,
  open: (dataDir: string) => Promise<{ current: T; close(): Promise<void> }>,
): Promise<T | undefined> {
  // Opening a JsonStore creates a missing file with its defaults: a file that is not there is not opened.
  if (!existsSync(path.join(dataDir, name))) return undefined;
  const store = await open(dataDir);
  try {
    return store.current;
  } finally {
    await store.close();
  }
}

/** sessions.json checked by its schema (SchemaJsonFile only reads; no server options needed as FileSessionStore's). */
async function readSessions(file: string): Promise<SessionsFile> {
  const reader = new SchemaJsonFile<SessionsFile>({
    file,
    schema: SessionsFile,
    version: 1,
    defaults: () => ({ sessions: {} }),
  });
  return reader.read();
}

/** keys-archive.jsonl: one ApiKeyRecord a line; an id's first line counts; a line torn by a crash is skipped. */
async function readKeyArchive(file: string): Promise<ApiKeyRecord[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const seen = new Set<string>();
  const records: ApiKeyRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return; // a line torn by a crash mid-append
    }
    const parsed = ApiKeyRecord.safeParse(raw);
    if (!parsed.success) {
      throw new ImportError(`${file} line ${i + 1} is not an API key record: ${problems(parsed.error)}`);
    }
    if (seen.has(parsed.data.id)) return;
    seen.add(parsed.data.id);
    records.push(parsed.data);
  });
  return records;
}

/** audit.jsonl in file order, by JsonLinesAuditLog's reader (torn lines skipped), each event checked. */
async function readAudit(dataDir: string): Promise<z.infer<typeof AuditLine>[]> {
  const log = JsonLinesAuditLog.inDataDir(dataDir);
  const events: AuditEvent[] = await log.read();
  return events.map((event, i) => {
    const parsed = AuditLine.safeParse(event);
    if (!parsed.success) {
      throw new ImportError(`${log.file}: event ${i + 1} is not an audit event: ${problems(parsed.error)}`);
    }
    return parsed.data;
  });
}

function problems(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

// Writing -----------------------------------------------------------------------------------------------------------

async function write(
  client: PoolClient,
  data: Snapshot,
  dataDir: string,
  schema: MigrateResult,
): Promise<ImportReport> {
  // The counters' row locks first, in name order: a store updating one of these documents meanwhile waits for the
  // import (and the import for it), as its updates wait for one another.
  await client.query('SELECT name FROM data_version WHERE name = ANY($1) ORDER BY name FOR UPDATE', [DOCUMENTS]);
  const changed = new Set<DocumentName>();

  const accounts = await step('accounts', () => insertAccounts(client, data.accounts));
  const subscriptions = await step('subscriptions', () => insertSubscriptions(client, data.accounts));
  if (accounts.inserted + subscriptions.inserted > 0) changed.add('accounts');

  const allKeys = [...data.archivedKeys, ...data.keys.keys];
  const apiKeys = await step('api keys', () => insertApiKeys(client, allKeys));
  const keyActions = await step('key actions', () => insertKeyActions(client, data.keys));
  if (apiKeys.inserted + keyActions.inserted > 0) changed.add('keys');

  const sessions = await step('sessions', () => insertSessions(client, data.sessions));
  if (sessions.inserted > 0) changed.add('sessions');

  const auditEvents = await step('audit events', () => insertAuditEvents(client, data.audit));

  const { declarations, declarationLgas } = await step('declarations', () =>
    insertDeclarations(client, data.declarations),
  );
  const declarationsLastUpdated = await step('declarations last_updated', () =>
    updateLastUpdated(client, data.declarations.last_updated),
  );
  if (declarations.inserted + declarationLgas.inserted > 0 || declarationsLastUpdated.updated) {
    changed.add('declarations');
  }

  const ingestState = await step('ingest state', () => updateIngestState(client, data.ingestState));
  if (ingestState.imported) changed.add('ingest_state');

  const catchmentImport = await step('catchments', () => importCatchments(client, data.catchments));
  if (catchmentImport.catchments.inserted + catchmentImport.alerts.inserted > 0 || catchmentImport.metaUpdated) {
    changed.add('catchments');
  }

  const webhookImport = await step('webhooks', () => importWebhooks(client, data.webhooks));
  if (webhookImport.webhooks.inserted + webhookImport.deliveries.inserted > 0) changed.add('webhooks');

  const bumped = [...changed].sort();
  if (bumped.length > 0) {
    await client.query('UPDATE data_version SET version = version + 1, changed_at = now() WHERE name = ANY($1)', [
      bumped,
    ]);
  }

  const tables = [accounts, subscriptions, apiKeys, keyActions, auditEvents, declarations, declarationLgas, sessions];
  tables.push(catchmentImport.catchments, catchmentImport.alerts);
  tables.push(webhookImport.webhooks, webhookImport.deliveries);
  return {
    dataDir,
    schema,
    accounts,
    subscriptions,
    apiKeys: { ...apiKeys, fromArchive: data.archivedKeys.length },
    keyActions,
    auditEvents,
    declarations,
    declarationLgas,
    declarationsLastUpdated,
    ingestState,
    sessions,
    catchments: catchmentImport.catchments,
    catchmentAlerts: catchmentImport.alerts,
    webhooks: webhookImport.webhooks,
    webhookDeliveries: webhookImport.deliveries,
    bumped,
    inserted: tables.reduce((sum, t) => sum + t.inserted, 0),
  };
}

/** Runs one part of the import; a database error becomes an ImportError naming the part (and the record, when known). */
async function step<T>(label: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(`${label}: ${describe(err)}`, { cause: err });
  }
}

/** Where insertRows puts rows: the table, its columns (name, SQL type, and how to compute it when not as is). */
interface InsertSpec {
  table: string;
  columns: readonly (readonly [name: string, type: string, expression?: string])[];
  /** The primary key: a row that conflicts on it is left alone; any other conflict is an error. */
  key: string;
}

/**
 * Inserts `rows` (objects with the spec's columns as properties) in batches, in their order, through `INSERT … SELECT
 * … FROM jsonb_to_recordset($1) ORDER BY` their index: rows that take a default from a sequence (migration 0002's
 * document positions) get them in file order. Returns the primary keys of the rows inserted (those that were not
 * already present), as text.
 */
async function insertRows(client: PoolClient, spec: InsertSpec, rows: readonly object[]): Promise<string[]> {
  const names = spec.columns.map(([name]) => name).join(', ');
  const values = spec.columns.map(([name, , expression]) => expression ?? `r.${name}`).join(', ');
  const declared = spec.columns.map(([name, type]) => `${name} ${type}`).join(', ');
  const sql = `INSERT INTO ${spec.table} (${names})
     SELECT ${values} FROM jsonb_to_recordset($1::jsonb) AS r(${declared}, import_order integer) ORDER BY r.import_order
     ON CONFLICT (${spec.key}) DO NOTHING
     RETURNING (${spec.key})::text AS key`;
  const inserted: string[] = [];
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH).map((row, j) => ({ ...row, import_order: i + j }));
    const result = await client.query<{ key: string }>(sql, [JSON.stringify(batch)]);
    for (const row of result.rows) inserted.push(row.key);
  }
  return inserted;
}

async function insertAccounts(client: PoolClient, file: AccountsFile): Promise<TableCount> {
  const inserted = await insertRows(
    client,
    {
      table: 'accounts',
      columns: [
        ['id', 'text'],
        ['email', 'text'],
        ['password_hash', 'text'],
        ['created_at', 'timestamptz'],
      ],
      key: 'id',
    },
    file.accounts,
  );
  return tableCount(file.accounts.length, inserted.length);
}

async function insertSubscriptions(client: PoolClient, file: AccountsFile): Promise<TableCount> {
  const inserted = await insertRows(
    client,
    {
      table: 'subscriptions',
      columns: [
        ['id', 'text'],
        ['account_id', 'text'],
        ['plan', 'text'],
        ['status', 'text'],
        ['expires_at', 'timestamptz'],
        ['rate_limit', 'integer'],
        ['updated_at', 'timestamptz'],
      ],
      key: 'id',
    },
    file.subscriptions,
  );
  return tableCount(file.subscriptions.length, inserted.length);
}

async function insertApiKeys(client: PoolClient, keys: readonly ApiKeyRecord[]): Promise<TableCount> {
  const rows = keys.map((k) => ({
    id: k.id,
    account_id: k.account_id,
    subscription_id: k.subscription_id,
    key_hash: k.hash,
    // Anything that looks like a whole key is cut to its prefix (redactKeys, as the audit trails do), here and in the
    // audit events, so that not even a file written by some buggy release can put a key into the database.
    key_prefix: redactKeys(k.prefix),
    status: k.status,
    created_at: k.created_at,
    revoked_at: k.revoked_at,
    last_used_at: k.last_used_at,
  }));
  const inserted = await insertRows(
    client,
    {
      table: 'api_keys',
      columns: [
        ['id', 'text'],
        ['account_id', 'text'],
        ['subscription_id', 'text'],
        ['key_hash', 'text'],
        ['key_prefix', 'text'],
        ['status', 'text'],
        ['created_at', 'timestamptz'],
        ['revoked_at', 'timestamptz'],
        ['last_used_at', 'timestamptz'],
      ],
      key: 'id',
    },
    rows,
  );
  return tableCount(rows.length, inserted.length);
}

/**
 * Loads `rows` into a temporary table (dropped at commit or rollback) with an `ord` column numbering them in file
 * order, in batches; the caller then inserts from it with one statement, which sees all of them at once.
 */
async function loadTemporary(
  client: PoolClient,
  table: string,
  columns: string,
  rows: readonly object[],
): Promise<void> {
  await client.query(`CREATE TEMPORARY TABLE ${table} (ord integer NOT NULL, ${columns}) ON COMMIT DROP`);
  const sql = `INSERT INTO ${table} SELECT * FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)`;
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH).map((row, j) => ({ ord: i + j, ...row }));
    await client.query(sql, [JSON.stringify(batch)]);
  }
}

/**
 * Key actions have no id of their own: an (account, time) pair the file holds n times is inserted as often as the
 * table holds it fewer than n times.
 */
async function insertKeyActions(client: PoolClient, file: KeysFile): Promise<TableCount> {
  const rows = Object.entries(file.key_actions).flatMap(([account_id, times]) =>
    times.map((at) => ({ account_id, at })),
  );
  if (rows.length === 0) return tableCount(0, 0);
  await loadTemporary(client, 'import_key_actions', 'account_id text NOT NULL, at timestamptz NOT NULL', rows);
  const { rowCount } = await client.query(`
    WITH src AS (
      SELECT i.ord, i.account_id, i.at, row_number() OVER (PARTITION BY i.account_id, i.at ORDER BY i.ord) AS n
        FROM import_key_actions i
    ), present AS (
      SELECT k.account_id, k.at, count(*) AS c
        FROM key_actions k JOIN (SELECT DISTINCT account_id FROM import_key_actions) a USING (account_id)
       GROUP BY k.account_id, k.at
    )
    INSERT INTO key_actions (account_id, at)
    SELECT src.account_id, src.at
      FROM src LEFT JOIN present USING (account_id, at)
     WHERE src.n > coalesce(present.c, 0)
     ORDER BY src.ord`);
  return tableCount(rows.length, rowCount ?? 0);
}

async function insertSessions(client: PoolClient, file: SessionsFile): Promise<TableCount> {
  const rows = Object.entries(file.sessions).map(([sid_hash, s]) => ({
    sid_hash,
    account_id: s.account_id,
    created_at: s.created_at,
    last_seen_at: s.last_seen_at,
    cookie: s.cookie,
  }));
  const inserted = await insertRows(
    client,
    {
      table: 'sessions',
      columns: [
        ['sid_hash', 'text'],
        ['account_id', 'text'],
        ['created_at', 'timestamptz'],
        ['last_seen_at', 'timestamptz'],
        ['cookie', 'jsonb'],
      ],
      key: 'sid_hash',
    },
    rows,
  );
  return tableCount(rows.length, inserted.length);
}

const AUDIT_COLUMNS = [
  'at',
  'event',
  'source',
  'account_id',
  'email',
  'ip',
  'key_prefix',
  'reason',
  'subscription_status',
  'subscription_expires_at',
  'subscription_rate_limit',
] as const;

/** One text value per audit event that is equal exactly when every column is (NULL and 'null' kept apart). */
const auditIdentity = (alias: string) =>
  `jsonb_build_array(${AUDIT_COLUMNS.map((c) => `${alias}.${c}`).join(', ')})::text`;

/**
 * Audit events have no id in audit.jsonl, and the table is append-only, so they are compared by content: an event
 * identical in every column (time to the microsecond, type, source, account, email, address, key prefix, reason,
 * subscription) to one the file holds n times is inserted as often as the table holds it fewer than n times. A second
 * run inserts nothing; a run after audit.jsonl grew inserts the new lines only; events a server wrote to the table
 * itself are never mistaken for the file's unless identical in every column. What is inserted goes in file order
 * (the table is read in id order).
 */
async function insertAuditEvents(client: PoolClient, events: z.infer<typeof AuditLine>[]): Promise<TableCount> {
  if (events.length === 0) return tableCount(0, 0);
  const rows = events.map((e) => ({
    at: e.at,
    event: e.event,
    source: e.source,
    account_id: e.account_id ?? null,
    email: redactKeys(e.email ?? null),
    ip: redactKeys(e.ip ?? null),
    key_prefix: redactKeys(e.key_prefix ?? null),
    reason: redactKeys(e.reason ?? null),
    subscription_status: e.subscription?.status ?? null,
    subscription_expires_at: e.subscription?.expires_at ?? null,
    subscription_rate_limit: e.subscription?.rate_limit ?? null,
  }));
  await loadTemporary(
    client,
    'import_audit_events',
    `at timestamptz NOT NULL, event text NOT NULL, source text NOT NULL, account_id text, email text, ip text,
     key_prefix text, reason text, subscription_status text, subscription_expires_at timestamptz,
     subscription_rate_limit integer`,
    rows,
  );
  const columns = AUDIT_COLUMNS.join(', ');
  const { rowCount } = await client.query(`
    WITH src AS (
      SELECT i.*, ${auditIdentity('i')} AS identity FROM import_audit_events i
    ), numbered AS (
      SELECT src.*, row_number() OVER (PARTITION BY src.identity ORDER BY src.ord) AS n FROM src
    ), present AS (
      SELECT ${auditIdentity('e')} AS identity, count(*) AS c FROM audit_events e GROUP BY 1
    )
    INSERT INTO audit_events (${columns})
    SELECT ${AUDIT_COLUMNS.map((c) => `numbered.${c}`).join(', ')}
      FROM numbered LEFT JOIN present USING (identity)
     WHERE numbered.n > coalesce(present.c, 0)
     ORDER BY numbered.ord`);
  return tableCount(rows.length, rowCount ?? 0);
}

/** New declarations with their LGAs in order; a declaration the database has (same AGRN) is left as it is, LGAs too. */
async function insertDeclarations(
  client: PoolClient,
  file: DeclarationsFile,
): Promise<{ declarations: TableCount; declarationLgas: TableCount }> {
  const added = new Set(
    await insertRows(
      client,
      {
        table: 'declarations',
        columns: [
          ['agrn', 'text'],
          ['title', 'text'],
          ['state', 'text'],
          ['hazard_type', 'text'],
          ['start_date', 'date'],
          ['end_date', 'date'],
          ['url', 'text'],
          [
            'sources',
            'jsonb',
            'ARRAY(SELECT s.value FROM jsonb_array_elements_text(r.sources) WITH ORDINALITY AS s(value, n) ORDER BY s.n)',
          ],
        ],
        key: 'agrn',
      },
      file.declarations.map(({ lgas: _lgas, ...declaration }) => declaration),
    ),
  );
  const lgas = file.declarations.flatMap((d) =>
    d.lgas.map((lga, position) => ({ agrn: d.agrn, position, name: lga.name, code: lga.code })),
  );
  const insertedLgas = await insertRows(
    client,
    {
      table: 'declaration_lgas',
      columns: [
        ['agrn', 'text'],
        ['position', 'integer'],
        ['name', 'text'],
        ['code', 'text'],
      ],
      key: 'agrn, position',
    },
    lgas.filter((l) => added.has(l.agrn)),
  );
  return {
    declarations: tableCount(file.declarations.length, added.size),
    declarationLgas: tableCount(lgas.length, insertedLgas.length),
  };
}

/** declarations_meta.last_updated takes the file's value when the database has none or an older one. */
async function updateLastUpdated(
  client: PoolClient,
  lastUpdated: string | null,
): Promise<ImportReport['declarationsLastUpdated']> {
  const { rows } = await client.query<{ last_updated: Date | null }>(
    'SELECT last_updated FROM declarations_meta WHERE singleton',
  );
  const before = rows[0]?.last_updated?.toISOString() ?? null;
  if (lastUpdated === null) return { inDataDir: null, before, updated: false };
  const { rowCount } = await client.query(
    `INSERT INTO declarations_meta (singleton, last_updated) VALUES (true, $1::timestamptz)
     ON CONFLICT (singleton) DO UPDATE SET last_updated = EXCLUDED.last_updated
      WHERE declarations_meta.last_updated IS NULL OR declarations_meta.last_updated < EXCLUDED.last_updated`,
    [lastUpdated],
  );
  return { inDataDir: lastUpdated, before, updated: (rowCount ?? 0) > 0 };
}

function isEmptyIngestState(state: IngestStateFile): boolean {
  return (
    state.last_attempt_at === null &&
    state.last_success_at === null &&
    state.last_error === null &&
    state.last_success_counts === null &&
    state.unmatched_lga_names.length === 0 &&
    state.history.length === 0
  );
}

/** The file's ingest state, into a database whose ingest state is still empty (as the migration created it). */
async function updateIngestState(
  client: PoolClient,
  state: IngestStateFile | null,
): Promise<ImportReport['ingestState']> {
  if (state === null || isEmptyIngestState(state)) return { inDataDir: false, imported: false };
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  const { rowCount } = await client.query(
    `INSERT INTO ingest_state AS s (singleton, last_attempt_at, last_success_at, last_error, last_success_counts,
                                    unmatched_lga_names, history)
     VALUES (true, $1::timestamptz, $2::timestamptz, $3::jsonb, $4::jsonb, $5::jsonb, $6::jsonb)
     ON CONFLICT (singleton) DO UPDATE SET
       last_attempt_at = EXCLUDED.last_attempt_at,
       last_success_at = EXCLUDED.last_success_at,
       last_error = EXCLUDED.last_error,
       last_success_counts = EXCLUDED.last_success_counts,
       unmatched_lga_names = EXCLUDED.unmatched_lga_names,
       history = EXCLUDED.history
      WHERE s.last_attempt_at IS NULL AND s.last_success_at IS NULL AND s.last_error IS NULL
        AND s.last_success_counts IS NULL AND s.unmatched_lga_names = '[]'::jsonb AND s.history = '[]'::jsonb`,
    [
      state.last_attempt_at,
      state.last_success_at,
      json(state.last_error),
      json(state.last_success_counts),
      JSON.stringify(state.unmatched_lga_names),
      JSON.stringify(state.history),
    ],
  );
  return { inDataDir: true, imported: (rowCount ?? 0) > 0 };
}

// Messages ----------------------------------------------------------------------------------------------------------

interface DatabaseErrorFields {
  code?: string;
  detail?: string;
}

/**
 * An error as one line. For a unique or foreign-key violation, PostgreSQL's detail names the record (`Key
 * (lower(email))=(a@b.example) already exists.`); other details (a check violation's "Failing row contains …") would
 * print a whole row, password hash included, and are left out: the constraint's name is in the message.
 */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return oneLine(String(err));
  // A connection refused on every address of a name (localhost: ::1 and 127.0.0.1) is an AggregateError, no message.
  if (err instanceof AggregateError && err.message === '') return oneLine(err.errors.map(describe).join('; '));
  const { code, detail } = err as Error & DatabaseErrorFields;
  const named = (code === '23505' || code === '23503') && detail ? ` (${detail})` : '';
  return oneLine(`${err.message}${named}`);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** The report as the admin CLI prints it: a table of counts per table, then the two singletons and the total. */
export function formatImportReport(report: ImportReport): string {
  const row = (name: string, c: TableCount) => [
    name,
    String(c.inDataDir),
    String(c.inserted),
    String(c.alreadyPresent),
  ];
  const { schema, apiKeys, declarationsLastUpdated: meta, ingestState } = report;
  const migrated = schema.applied.length > 0 ? `, migrations applied now: ${schema.applied.join(', ')}` : '';
  let lastUpdated: string;
  if (meta.inDataDir === null) lastUpdated = 'none in DATA_DIR';
  else if (meta.updated) lastUpdated = `set to ${meta.inDataDir} (the database had ${meta.before ?? 'none'})`;
  else lastUpdated = `kept the database's ${meta.before} (DATA_DIR's ${meta.inDataDir} is not newer)`;
  let ingest: string;
  if (!ingestState.inDataDir) ingest = 'none in DATA_DIR';
  else if (ingestState.imported) ingest = 'imported';
  else ingest = "kept the database's (it already had one)";
  const lines = [
    `Imported ${report.dataDir} into PostgreSQL (schema version ${schema.version}${migrated}).`,
    '',
    alignedTable(
      ['TABLE', 'IN DATA_DIR', 'NEW', 'ALREADY PRESENT'],
      [
        row('accounts', report.accounts),
        row('subscriptions', report.subscriptions),
        row('api keys', apiKeys),
        row('key actions', report.keyActions),
        row('audit events', report.auditEvents),
        row('declarations', report.declarations),
        row('declaration LGAs', report.declarationLgas),
        row('sessions', report.sessions),
        // Listed when DATA_DIR has catchments (older data directories have none).
        ...(report.catchments.inDataDir + report.catchmentAlerts.inDataDir > 0
          ? [row('catchments', report.catchments), row('catchment alerts', report.catchmentAlerts)]
          : []),
        ...(report.webhooks.inDataDir + report.webhookDeliveries.inDataDir > 0
          ? [row('webhooks', report.webhooks), row('webhook deliveries', report.webhookDeliveries)]
          : []),
      ],
    ),
    '',
    ...(apiKeys.fromArchive > 0 ? [`api keys in DATA_DIR include ${apiKeys.fromArchive} from keys-archive.jsonl`] : []),
    `declarations last updated: ${lastUpdated}`,
    `ingest state: ${ingest}`,
    report.bumped.length === 0
      ? 'Nothing new: 0 rows inserted, the database is unchanged.'
      : `${report.inserted} new rows in all.`,
  ];
  return lines.join('\n');
}
