import type pg from 'pg';
import { ContractError } from '../contract-error';
import type { AlongsideWrite } from '../storage/document-store';
import type { Queryable } from '../storage/postgres/rows';
import { timestampOut } from '../storage/postgres/rows';
import { inTransaction } from '../storage/postgres/transaction';
import { storageError } from '../storage/postgres/unavailable';
import { StoredSsoConnection, type SsoSettingsRecord } from './sso-records';
import type { SsoRepository } from './sso-repository';

const SELECT_SETTINGS = `
  SELECT s.organisation_id, s.connection, s.default_role, s.require_sso, s.updated_at, s.updated_by,
         ARRAY(SELECT d.domain FROM sso_domains d WHERE d.organisation_id = s.organisation_id ORDER BY d.ordinal)
           AS domains
  FROM sso_settings s`;

interface SettingsRow {
  organisation_id: string;
  connection: unknown;
  default_role: SsoSettingsRecord['default_role'];
  require_sso: boolean;
  updated_at: unknown;
  updated_by: string | null;
  domains: string[];
}

const recordOf = (row: SettingsRow): SsoSettingsRecord => ({
  organisation_id: row.organisation_id,
  connection: StoredSsoConnection.parse(row.connection),
  domains: row.domains,
  default_role: row.default_role,
  require_sso: row.require_sso,
  updated_at: timestampOut(row.updated_at),
  updated_by: row.updated_by,
});

/** PostgreSQL's unique_violation: here, a domain another organisation's transaction holds. */
const UNIQUE_VIOLATION = '23505';

/**
 * The settings and departures as PostgreSQL rows (migration 0019), read on every call: no instance holds a copy that
 * could lag behind another's change. sso_domains' primary key keeps each domain to one organisation, decided by the
 * database even when two instances save at the same moment (the second waits for the first, then is refused).
 */
export class PostgresSso implements SsoRepository {
  constructor(private readonly pool: pg.Pool) {}

  async get(organisationId: string): Promise<SsoSettingsRecord | null> {
    const { rows } = await this.query<SettingsRow>(`${SELECT_SETTINGS} WHERE s.organisation_id = $1`, [organisationId]);
    return rows[0] ? recordOf(rows[0]) : null;
  }

  async byDomain(domain: string): Promise<SsoSettingsRecord | null> {
    const { rows } = await this.query<SettingsRow>(
      `${SELECT_SETTINGS} WHERE s.organisation_id = (SELECT organisation_id FROM sso_domains WHERE domain = $1)`,
      [domain],
    );
    return rows[0] ? recordOf(rows[0]) : null;
  }

  put(record: SsoSettingsRecord, alongside?: AlongsideWrite): Promise<SsoSettingsRecord | null> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<SettingsRow>(
        `${SELECT_SETTINGS} WHERE s.organisation_id = $1 FOR UPDATE OF s`,
        [record.organisation_id],
      );
      // An upsert: a concurrent first save of the same organisation waits here for the other, then updates it.
      await client.query(
        `INSERT INTO sso_settings (organisation_id, provider, connection, default_role, require_sso, updated_at, updated_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (organisation_id) DO UPDATE SET provider = EXCLUDED.provider, connection = EXCLUDED.connection,
           default_role = EXCLUDED.default_role, require_sso = EXCLUDED.require_sso,
           updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
        [
          record.organisation_id,
          record.connection.provider,
          JSON.stringify(record.connection),
          record.default_role,
          record.require_sso,
          record.updated_at,
          record.updated_by,
        ],
      );
      await client.query('DELETE FROM sso_domains WHERE organisation_id = $1', [record.organisation_id]);
      try {
        // Refused as a whole (the transaction rolls back): the settings the organisation had stay as they were.
        await client.query(
          `INSERT INTO sso_domains (domain, organisation_id, ordinal)
           SELECT domain, $1, ordinal FROM unnest($2::text[]) WITH ORDINALITY AS claimed (domain, ordinal)`,
          [record.organisation_id, record.domains],
        );
      } catch (err) {
        if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw new ContractError('sso_domain_taken');
        throw err;
      }
      await alongside?.write(client);
      return rows[0] ? recordOf(rows[0]) : null;
    });
  }

  remove(
    organisationId: string,
    alongside?: (removed: SsoSettingsRecord) => AlongsideWrite,
  ): Promise<SsoSettingsRecord | null> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<SettingsRow>(
        `${SELECT_SETTINGS} WHERE s.organisation_id = $1 FOR UPDATE OF s`,
        [organisationId],
      );
      if (!rows[0]) return null;
      const removed = recordOf(rows[0]);
      // Its domains go with it (ON DELETE CASCADE).
      await client.query('DELETE FROM sso_settings WHERE organisation_id = $1', [organisationId]);
      await alongside?.(removed).write(client);
      return removed;
    });
  }

  departed(organisationId: string, email: string, at: Date): AlongsideWrite {
    return {
      write: async (transaction?: Queryable) => {
        await this.query(
          `INSERT INTO sso_departures (organisation_id, email, removed_at) VALUES ($1, $2, $3)
           ON CONFLICT (organisation_id, email) DO UPDATE SET removed_at = EXCLUDED.removed_at`,
          [organisationId, email, at.toISOString()],
          transaction,
        );
      },
    };
  }

  rejoined(organisationId: string, email: string): AlongsideWrite {
    return {
      write: async (transaction?: Queryable) => {
        await this.query(
          'DELETE FROM sso_departures WHERE organisation_id = $1 AND email = $2',
          [organisationId, email],
          transaction,
        );
      },
    };
  }

  async wasRemoved(organisationId: string, email: string): Promise<boolean> {
    const { rows } = await this.query('SELECT 1 FROM sso_departures WHERE organisation_id = $1 AND email = $2', [
      organisationId,
      email,
    ]);
    return rows.length > 0;
  }

  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    values: unknown[],
    on: Queryable = this.pool,
  ): Promise<pg.QueryResult<R>> {
    try {
      return (await on.query(sql, values)) as pg.QueryResult<R>;
    } catch (err) {
      throw storageError(err);
    }
  }
}
