import type { PoolClient } from 'pg';
import { z } from 'zod';
import type { FeatureImporter } from '../storage/import/feature-importer';
import { ImportError, problems, step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { loadTemporary } from '../storage/import/import-rows';
import { tableCount, type TableCount } from '../storage/postgres/table-count';
import { AuditEvent, JsonLinesAuditLog, redactKeys } from './audit-log';
import { AUDIT_COLUMNS } from './postgres-audit-log';

/**
 * An audit.jsonl line as JsonLinesAuditLog writes it: checked here, since its reader only parses JSON. A line
 * without account_id or email reads as one with null.
 */
const AuditLine = AuditEvent.extend({ account_id: z.string().nullish(), email: z.string().nullish() });
type AuditLine = z.infer<typeof AuditLine>;

/**
 * audit.jsonl into `audit_events`, after what the table holds. The audit trail is no document a server holds in
 * memory (it is read on demand): there is no counter to bump.
 */
export const auditImporter: FeatureImporter<AuditLine[], Pick<ImportCounts, 'auditEvents'>> = {
  document: null,

  /** audit.jsonl in file order, by JsonLinesAuditLog's reader (torn lines skipped), each event checked. */
  async read(dataDir) {
    const log = JsonLinesAuditLog.inDataDir(dataDir);
    const events = await log.read();
    return events.map((event, i) => {
      const parsed = AuditLine.safeParse(event);
      if (!parsed.success) {
        throw new ImportError(`${log.file}: event ${i + 1} is not an audit event: ${problems(parsed.error)}`);
      }
      return parsed.data;
    });
  },

  async write(client, events, skips) {
    // An event the database cannot hold (a sign-in attempt's address with a NUL, before such addresses were refused)
    // is reported and left out; the trail's other events go in.
    const storable = skips.storable('audit.jsonl', events, (e) => `the ${e.event} event of ${e.at}`);
    const auditEvents = await step('audit events', () => insertAuditEvents(client, storable));
    return { counts: { auditEvents }, changed: false };
  },
};

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
async function insertAuditEvents(client: PoolClient, events: readonly AuditLine[]): Promise<TableCount> {
  if (events.length === 0) return tableCount(0, 0);
  // Anything that looks like a whole key is cut to its prefix, as the audit trails do to what they store.
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
    organisation_id: e.organisation_id ?? null,
    member_email: redactKeys(e.member_email ?? null),
    role: e.role ?? null,
    stripe_event_id: e.stripe_event_id ?? null,
    webhook_host: redactKeys(e.webhook_host ?? null),
    postcode_count: e.postcode_count ?? null,
    previous_name: e.previous_name ?? null,
    organisation_name: e.organisation_name ?? null,
    sso_provider: e.sso_provider ?? null,
  }));
  await loadTemporary(
    client,
    'import_audit_events',
    `at timestamptz NOT NULL, event text NOT NULL, source text NOT NULL, account_id text, email text, ip text,
     key_prefix text, reason text, subscription_status text, subscription_expires_at timestamptz,
     subscription_rate_limit integer, organisation_id text, member_email text, role text, stripe_event_id text,
     webhook_host text, postcode_count integer, previous_name text, organisation_name text,
     sso_provider text`,
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
