import { createHash } from 'node:crypto';
import { pino } from 'pino';
import { AccountsFile, accountsToOrganisations } from '../../../server/accounts/account-records';
import type { DeclarationsFile } from '../../../server/declarations/declaration-records';
import type { IngestStateFile, RunCounts } from '../../../server/ingest/ingest-state';
import type { ApiKeyRecord, KeysFile } from '../../../server/keys/key-records';
import { openDatabase, type Database } from '../../../server/storage/postgres/database';
import { afterEach } from 'vitest';
import { usePostgresServer } from '../../helpers/postgres-per-file';
import type { PostgresServer } from '../../helpers/postgres-server';

/** A logger that writes nothing: the tests look at what the stores do, not at what they log. */
export const silentLogger = pino({ level: 'silent' });

/**
 * A fresh database on `server` and `count` Databases opened on it, as `count` instances would: each its own pool,
 * LISTEN connection and DataVersions. `closeAll` closes whatever was opened through it.
 */
export function databases(server: Pick<PostgresServer, 'createDatabase'>) {
  const opened: { close(): Promise<void> }[] = [];
  let n = 0;
  return {
    async fresh(count: number, prefix = 'db'): Promise<{ url: string; dbs: Database[] }> {
      const url = await server.createDatabase(`${prefix}_${process.pid}_${++n}`);
      const dbs: Database[] = [];
      for (let i = 0; i < count; i++) {
        const db = await openDatabase(url, { logger: silentLogger, applicationName: `test-${i}`, poolSize: 6 });
        opened.push(db);
        dbs.push(db);
      }
      return { url, dbs };
    },
    /** Something to close before the databases (stores), closed first. */
    track<C extends { close(): Promise<void> }>(closable: C): C {
      opened.push(closable);
      return closable;
    },
    async closeAll(): Promise<void> {
      // Stores were tracked after their database: closing in reverse order closes them first.
      for (const c of opened.splice(0).reverse()) await c.close();
    },
  };
}

/**
 * One PostgreSQL for the test file (usePostgresServer), and `databases` on it whose Databases and stores are closed
 * after each test.
 */
export function postgresDatabases() {
  const postgres = usePostgresServer();
  const opened = databases(postgres);
  afterEach(async () => {
    await opened.closeAll();
  });
  return { postgres, opened };
}

export const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** Three accounts, each the owner of its own organisation (written in schema 1's shape and upgraded as a file is). */
export function accountsFixture(): AccountsFile {
  return AccountsFile.parse(accountsToOrganisations(legacyAccounts()));
}

function legacyAccounts() {
  return {
    accounts: [
      {
        id: '6f1c2a7e-0000-4000-8000-000000000001',
        email: 'reception@bondi-clinic.example',
        password_hash: 'scrypt$32768$8$1$c2FsdHNhbHQ=$aGFzaGhhc2g=',
        created_at: '2026-01-03T22:14:05.123Z',
      },
      {
        id: '6f1c2a7e-0000-4000-8000-000000000002',
        email: 'admin@lismore-gp.example',
        password_hash: 'scrypt$32768$8$1$b3RoZXI=$b3RoZXJoYXNo',
        created_at: '2026-01-03T22:14:05.123Z',
      },
      {
        id: '6f1c2a7e-0000-4000-8000-000000000003',
        email: 'it@wagga-health.example',
        password_hash: 'scrypt$32768$8$1$dGhpcmQ=$dGhpcmRoYXNo',
        created_at: '2026-02-28T13:00:00.000Z',
      },
    ],
    subscriptions: [
      {
        id: 'sub-1',
        account_id: '6f1c2a7e-0000-4000-8000-000000000001',
        plan: 'Clinic-Wide Access',
        status: 'active',
        expires_at: '2026-12-31T12:59:59.999Z',
        rate_limit: 100,
        updated_at: '2026-01-04T01:00:00.001Z',
      },
      {
        id: 'sub-2',
        account_id: '6f1c2a7e-0000-4000-8000-000000000002',
        plan: 'Clinic-Wide Access',
        status: 'inactive',
        expires_at: null,
        rate_limit: 250,
        updated_at: '2026-01-03T22:14:05.123Z',
      },
      {
        id: 'sub-3',
        account_id: '6f1c2a7e-0000-4000-8000-000000000003',
        plan: 'Clinic-Wide Access',
        status: 'active',
        expires_at: null,
        rate_limit: 1,
        updated_at: '2026-02-28T13:00:00.000Z',
      },
    ],
  };
}

/** A key record of `account` (in accountsFixture), revoked unless `active`. */
export function keyRecord(n: number, account: 1 | 2 | 3, status: 'active' | 'revoked'): ApiKeyRecord {
  const created = new Date(Date.UTC(2026, 2, 1, 0, 0, n, n % 1000));
  return {
    id: `key-${account}-${n}`,
    account_id: `6f1c2a7e-0000-4000-8000-00000000000${account}`,
    subscription_id: `sub-${account}`,
    hash: hashOf(`key ${account} ${n}`),
    prefix: `sk_live_${String(n).padStart(4, 'x')}`,
    status,
    created_at: created.toISOString(),
    revoked_at: status === 'revoked' ? new Date(created.getTime() + 3_600_123).toISOString() : null,
    last_used_at: n % 2 === 0 ? new Date(created.getTime() + 60_007).toISOString() : null,
  };
}

export function keysFixture(): KeysFile {
  return {
    keys: [
      keyRecord(1, 1, 'revoked'),
      keyRecord(2, 2, 'active'),
      keyRecord(3, 1, 'revoked'),
      keyRecord(4, 1, 'active'),
      keyRecord(5, 3, 'revoked'),
    ],
    key_actions: {
      '6f1c2a7e-0000-4000-8000-000000000001': [
        '2026-03-01T00:00:01.001Z',
        '2026-03-01T00:00:01.001Z',
        '2026-03-01T00:10:00.500Z',
      ],
      '6f1c2a7e-0000-4000-8000-000000000003': ['2026-03-01T00:00:05.005Z'],
    },
  };
}

export function declarationsFixture(): DeclarationsFile {
  return {
    last_updated: '2026-03-02T19:00:01.337Z',
    declarations: [
      {
        agrn: '1195',
        title: 'Northern Rivers Floods (February 2026)',
        state: 'NSW',
        hazard_type: 'Flood',
        start_date: '2026-02-28',
        end_date: null,
        url: 'https://www.disasterassist.gov.au/find-a-disaster/australian-disasters/agrn-1195',
        lgas: [
          { name: 'Lismore', code: '14850' },
          { name: 'Ballina', code: '10550' },
          { name: 'Byron Shire', code: null },
        ],
        sources: ['disasterassist', 'drfa-csv'],
      },
      {
        agrn: '1102',
        title: 'Bushfires, Gippsland',
        state: 'VIC',
        hazard_type: null,
        start_date: '2024-02-29',
        end_date: '2024-12-31',
        url: null,
        lgas: [],
        sources: [],
      },
      {
        agrn: '987',
        title: 'Severe storms',
        state: null,
        hazard_type: 'Storm',
        start_date: '1999-12-31',
        end_date: '2000-01-01',
        url: 'https://example.org/a?b=c&d',
        lgas: [{ name: 'Dalby\'s "Shire"', code: null }],
        sources: ['drfa-csv'],
      },
    ],
  };
}

const counts = (stored: number, listPath?: 'html' | 'browser'): RunCounts => ({
  ...(listPath && { list_path: listPath }),
  list_pages: 3,
  listed: 120,
  event_pages: 118,
  drfa_activations: null,
  stored,
  added: 2,
  changed: 1,
  ended: 0,
  unmatched_lga_names: 1,
  invalid_records: 0,
});

export function ingestStateFixture(): IngestStateFile {
  return {
    last_attempt_at: '2026-03-02T19:00:00.000Z',
    last_success_at: '2026-03-02T19:00:01.337Z',
    last_error: {
      at: '2026-03-01T19:00:00.250Z',
      kind: 'source_unavailable',
      message: 'disasterassist.gov.au answered 503',
      details: ['GET /find-a-disaster 503', 'retried 3 times'],
    },
    last_success_counts: counts(118, 'browser'),
    unmatched_lga_names: [{ agrn: '1195', state: 'NSW', name: 'Byron Shire' }],
    history: [
      {
        started_at: '2026-03-02T19:00:00.000Z',
        finished_at: '2026-03-02T19:00:01.337Z',
        trigger: 'schedule',
        ok: true,
        duration_ms: 1337,
        error: null,
        counts: counts(118, 'browser'),
      },
      {
        started_at: '2026-03-01T19:00:00.000Z',
        finished_at: '2026-03-01T19:00:00.250Z',
        trigger: 'cli',
        ok: false,
        duration_ms: 250,
        error: { kind: 'source_unavailable', message: 'disasterassist.gov.au answered 503' },
        counts: null,
      },
      {
        started_at: '2026-02-28T19:00:00.000Z',
        finished_at: '2026-02-28T19:00:09.999Z',
        trigger: 'startup',
        ok: true,
        duration_ms: 9999,
        error: null,
        counts: counts(117),
      },
    ],
  };
}
