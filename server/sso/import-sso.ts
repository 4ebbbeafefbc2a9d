import { readStoreFile, type FeatureImporter } from '../storage/import/feature-importer';
import { step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { insertCounted, insertNewRows, type ImportTarget } from '../storage/import/import-rows';
import { tableCount } from '../storage/postgres/table-count';
import { ssoDocument } from './sso-document';
import type { SsoFile } from './sso-records';

/** The tables of migration 0019 as the import fills them. */
const SSO_SETTINGS: ImportTarget = {
  table: 'sso_settings',
  key: 'organisation_id',
  columns: [
    { name: 'organisation_id', type: 'text' },
    { name: 'provider', type: 'text' },
    { name: 'connection', type: 'jsonb' },
    { name: 'default_role', type: 'text' },
    { name: 'require_sso', type: 'boolean' },
    { name: 'updated_at', type: 'timestamptz' },
    { name: 'updated_by', type: 'text' },
  ],
};
const SSO_DOMAINS: ImportTarget = {
  table: 'sso_domains',
  key: 'domain',
  columns: [
    { name: 'domain', type: 'text' },
    { name: 'organisation_id', type: 'text' },
    { name: 'ordinal', type: 'integer' },
  ],
};
const SSO_DEPARTURES: ImportTarget = {
  table: 'sso_departures',
  key: 'organisation_id, email',
  columns: [
    { name: 'organisation_id', type: 'text' },
    { name: 'email', type: 'text' },
    { name: 'removed_at', type: 'timestamptz' },
  ],
};

type SsoCounts = Pick<ImportCounts, 'ssoSettings' | 'ssoDomains' | 'ssoDepartures'>;

/**
 * DATA_DIR/sso.json into migration 0019's tables: each organisation's settings (the sealed client secret as it is:
 * it opens under the same SSO_ENCRYPTION_KEY, bound to the same organisation ID) with their domains, and the team's
 * departures. An organisation whose settings the database already has keeps them, domains and all; a domain another
 * organisation claims in the database stays that organisation's, and the report says so. Read per request, so no
 * data_version counter is bumped.
 */
export const ssoImporter: FeatureImporter<SsoFile, SsoCounts> = {
  document: null,
  read: readStoreFile(ssoDocument, { settings: [], departures: [] }),
  async write(client, file, skips) {
    const { rows } = await client.query<{ id: string }>('SELECT id FROM organisations WHERE id = ANY($1)', [
      [...new Set([...file.settings, ...file.departures].map((r) => r.organisation_id))],
    ]);
    const present = new Set(rows.map((r) => r.id));
    const kept = <R extends { organisation_id: string }>(records: readonly R[]) =>
      records.filter((r) => present.has(r.organisation_id) && !skips.isLeftOut('organisation', r.organisation_id));
    const settings = skips.storable(
      'sso.json',
      kept(file.settings),
      (s) => `the single sign-on of organisation ${s.organisation_id}`,
    );
    return step('single sign-on', async () => {
      const inserted = new Set(
        await insertNewRows(
          client,
          SSO_SETTINGS,
          settings.map((s) => ({ ...s, provider: s.connection.provider })),
        ),
      );
      const domains = settings.flatMap((s) =>
        s.domains.map((domain, ordinal) => ({ domain, organisation_id: s.organisation_id, ordinal })),
      );
      const claimed = new Set(
        await insertNewRows(
          client,
          SSO_DOMAINS,
          domains.filter((d) => inserted.has(d.organisation_id)),
        ),
      );
      for (const d of domains) {
        if (inserted.has(d.organisation_id) && !claimed.has(d.domain)) {
          skips.note(
            `sso.json: the domain ${d.domain} of organisation ${d.organisation_id} left out: another organisation claims it in the database`,
          );
        }
      }
      const ssoDepartures = await insertCounted(client, SSO_DEPARTURES, kept(file.departures));
      return {
        counts: {
          ssoSettings: tableCount(settings.length, inserted.size),
          ssoDomains: tableCount(domains.length, claimed.size),
          ssoDepartures,
        },
        changed: false,
      };
    });
  },
};
