import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  loadMigrations,
  migrateDatabase,
  SchemaTooNewError,
  type Migration,
} from '../../../server/storage/postgres/migrate';
import { usePostgresServer } from '../../helpers/postgres-per-file';
import { accountsToOrganisations, type AccountsFile } from '../../../server/accounts/account-records';
import { AuditEventType } from '../../../server/audit/audit-log';

// A real PostgreSQL on loopback, one for the file; each test gets its own database.
const postgres = usePostgresServer();
let dbCount = 0;

async function freshDatabase(): Promise<string> {
  return postgres.createDatabase(`migrate_${++dbCount}`);
}

function quietLogger() {
  const lines: { level: string; msg: string; fields?: unknown }[] = [];
  const log =
    (level: string) =>
    (fieldsOrMsg: unknown, msg?: string): void => {
      lines.push(
        typeof fieldsOrMsg === 'string' ? { level, msg: fieldsOrMsg } : { level, msg: msg!, fields: fieldsOrMsg },
      );
    };
  return { lines, logger: { info: log('info'), warn: log('warn') } as any };
}

async function tables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
  );
  return rows.map((r) => r.table_name);
}

async function migrated(): Promise<pg.Pool> {
  const pool = postgres.pool(await freshDatabase());
  await migrateDatabase(pool, quietLogger());
  return pool;
}

async function insertAccount(pool: pg.Pool, id: string): Promise<void> {
  await pool.query(
    `INSERT INTO accounts (id, email, password_hash, created_at) VALUES ($1, $2, 'scrypt$x', now());
     `.trim(),
    [id, `${id}@clinic.example`],
  );
  await pool.query(`INSERT INTO organisations (id, name, created_at) VALUES ($1, $1, now())`, [`org-${id}`]);
  await pool.query(
    `INSERT INTO members (organisation_id, account_id, role, created_at) VALUES ($1, $2, 'owner', now())`,
    [`org-${id}`, id],
  );
  await pool.query(
    `INSERT INTO subscriptions (id, organisation_id, plan, status, expires_at, rate_limit, updated_at)
     VALUES ($1, $2, 'Clinic-Wide Access', 'active', NULL, 100, now())`,
    [`sub-${id}`, `org-${id}`],
  );
}

let keyCount = 0;
function keyRow(accountId: string, status: 'active' | 'revoked') {
  const n = ++keyCount;
  return [
    `key-${n}`,
    accountId,
    `sub-${accountId}`,
    n.toString(16).padStart(64, '0'),
    'sk_live_abcd',
    status,
    status === 'revoked' ? new Date() : null,
  ];
}
const INSERT_KEY = `INSERT INTO api_keys (id, account_id, subscription_id, key_hash, key_prefix, status, created_at, revoked_at)
  VALUES ($1, $2, $3, $4, $5, $6, now(), $7)`;

describe('migrateDatabase', () => {
  it('applies the migrations to an empty database and records them', async () => {
    const pool = postgres.pool(await freshDatabase());
    const { lines, logger } = quietLogger();
    const known = await loadMigrations();
    expect(known.map((m) => m.version)).toEqual(known.map((_, i) => i + 1));

    const result = await migrateDatabase(pool, { logger });

    expect(result).toEqual({ applied: known.map((m) => m.version), version: known.length });
    expect(await tables(pool)).toEqual(
      expect.arrayContaining([
        'accounts',
        'subscriptions',
        'api_keys',
        'key_actions',
        'audit_events',
        'declarations',
        'declaration_lgas',
        'declarations_meta',
        'ingest_state',
        'sessions',
        'postcode_correspondence',
        'data_version',
        'schema_migrations',
      ]),
    );
    const { rows } = await pool.query('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
    expect(rows).toEqual(known.map((m) => ({ version: m.version, name: m.name, checksum: m.checksum })));
    expect(lines.filter((l) => l.msg === 'applied database migration')).toHaveLength(known.length);
    // The singletons and counters exist from the start.
    expect((await pool.query('SELECT count(*)::int AS n FROM ingest_state')).rows[0].n).toBe(1);
    expect((await pool.query('SELECT count(*)::int AS n FROM postcode_correspondence')).rows[0].n).toBe(1);
    expect((await pool.query('SELECT name FROM data_version ORDER BY name')).rows.map((r) => r.name)).toEqual([
      'accounts',
      'catchments',
      'declarations',
      'ingest_state',
      'keys',
      'postcode_correspondence',
      'webhooks',
    ]);
  });

  it('applies nothing the second time', async () => {
    const pool = postgres.pool(await freshDatabase());
    await migrateDatabase(pool, quietLogger());
    const before = (await pool.query('SELECT version, applied_at FROM schema_migrations ORDER BY version')).rows;

    const { lines, logger } = quietLogger();
    const again = await migrateDatabase(pool, { logger });

    expect(again.applied).toEqual([]);
    expect(again.version).toBe(before.length);
    expect((await pool.query('SELECT version, applied_at FROM schema_migrations ORDER BY version')).rows).toEqual(
      before,
    );
    expect(lines).toEqual([]);
  });

  it('warns about, and does not re-apply, an applied migration whose file has changed', async () => {
    const pool = await migrated();
    const known = await loadMigrations();
    const edited: Migration[] = [{ ...known[0]!, checksum: 'f'.repeat(64) }, ...known.slice(1)];
    const { lines, logger } = quietLogger();

    expect((await migrateDatabase(pool, { logger, migrations: edited })).applied).toEqual([]);

    expect(lines).toEqual([expect.objectContaining({ level: 'warn', fields: { version: 1, name: 'initial' } })]);
  });

  it('applies each migration once when two instances start at the same time (advisory lock)', async () => {
    const url = await freshDatabase();
    const [a, b] = [postgres.pool(url), postgres.pool(url)];
    // A slow first migration widens the window in which an unlocked second instance would apply it too.
    const known = await loadMigrations();
    const slow: Migration[] = [{ ...known[0]!, sql: `SELECT pg_sleep(0.3);\n${known[0]!.sql}` }, ...known.slice(1)];

    const [logA, logB] = [quietLogger(), quietLogger()];
    const results = await Promise.all([
      migrateDatabase(a, { logger: logA.logger, migrations: slow }),
      migrateDatabase(b, { logger: logB.logger, migrations: slow }),
    ]);

    // One of them found the lock taken and waited for it.
    const waited = [...logA.lines, ...logB.lines].filter((l) => l.msg.startsWith('another instance is migrating'));
    expect(waited).toHaveLength(1);
    const applied = results.map((r) => r.applied).sort((x, y) => y.length - x.length);
    expect(applied).toEqual([known.map((m) => m.version), []]);
    expect(results.map((r) => r.version)).toEqual([known.length, known.length]);
    expect((await a.query('SELECT count(*)::int AS n FROM schema_migrations')).rows[0].n).toBe(known.length);
    // The lock was released: a third run takes it straight away.
    expect((await migrateDatabase(a, quietLogger())).applied).toEqual([]);
  });

  it('refuses a database whose schema is newer than this release knows, with one clear line', async () => {
    const pool = await migrated();
    const known = (await loadMigrations()).length;
    await pool.query(
      "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, 'future', 'x'), ($2, 'x', 'y')",
      [known + 1, known + 2],
    );

    const failure = migrateDatabase(pool, quietLogger());

    await expect(failure).rejects.toBeInstanceOf(SchemaTooNewError);
    const err = (await failure.catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(
      `database schema is at version ${known + 2}, this release knows up to ${known}: upgrade the service`,
    );
    expect(err.message).not.toContain('\n');
    // Nothing was touched, and the lock is not left held.
    expect((await pool.query('SELECT count(*)::int AS n FROM schema_migrations')).rows[0].n).toBe(known + 2);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'");
    expect(rows[0].n).toBe(0);
  });

  it('leaves nothing behind when a migration fails, and applies it on the next run', async () => {
    const pool = postgres.pool(await freshDatabase());
    const known = await loadMigrations();
    const broken: Migration[] = [{ ...known[0]!, sql: `${known[0]!.sql}\nSELECT no_such_function();` }];

    await expect(migrateDatabase(pool, { ...quietLogger(), migrations: broken })).rejects.toThrow(
      /database migration 1 \(initial\) failed: function no_such_function\(\) does not exist/,
    );
    expect(await tables(pool)).toEqual(['schema_migrations']);

    expect((await migrateDatabase(pool, quietLogger())).applied).toEqual(known.map((m) => m.version));
  });
});

describe('migration 7 (catchment postcode states)', () => {
  it("moves each catchment's baseline into one state per postcode, and marks postcodes without one pending", async () => {
    const pool = postgres.pool(await freshDatabase());
    const known = await loadMigrations();
    await migrateDatabase(pool, { ...quietLogger(), migrations: known.filter((m) => m.version < 7) });
    const state = (eligible: boolean, agrns: string[]) => ({ is_eligible: eligible, active_agrns: agrns });
    await pool.query(
      `INSERT INTO catchments (subscription_id, postcodes, updated_at, baseline) VALUES
       ('sub-a', '{2000,2480,4000}', now(), $1), ('sub-b', '{2480,4055}', now(), $2)`,
      [
        { '2000': state(false, []), '2480': state(true, ['2001', '2003']) },
        { '2480': state(true, ['2001', '2003']), '4055': state(true, ['1001']) },
      ],
    );

    await migrateDatabase(pool, { ...quietLogger(), migrations: known.filter((m) => m.version <= 7) });

    const states = await pool.query('SELECT * FROM catchment_postcode_states ORDER BY postcode');
    expect(states.rows).toEqual([
      { postcode: '2000', is_eligible: false, active_agrns: [] },
      { postcode: '2480', is_eligible: true, active_agrns: ['2001', '2003'] },
      { postcode: '4055', is_eligible: true, active_agrns: ['1001'] },
    ]);
    const catchments = await pool.query('SELECT subscription_id, pending FROM catchments ORDER BY subscription_id');
    expect(catchments.rows).toEqual([
      { subscription_id: 'sub-a', pending: ['4000'] },
      { subscription_id: 'sub-b', pending: [] },
    ]);
  });
});

describe('migration 8 (catchment entries)', () => {
  it('turns each catchment array into one entry per postcode, keeping which are pending', async () => {
    const pool = postgres.pool(await freshDatabase());
    const known = await loadMigrations();
    await migrateDatabase(pool, { ...quietLogger(), migrations: known.filter((m) => m.version < 8) });
    await pool.query(
      `INSERT INTO catchments (subscription_id, postcodes, updated_at, pending) VALUES
       ('sub-a', '{2000,2480,4000}', '2026-11-20T00:00:00Z', '{4000}'), ('sub-b', '{}', '2026-11-21T00:00:00Z', '{}')`,
    );

    await migrateDatabase(pool, quietLogger());

    const entries = await pool.query('SELECT * FROM catchment_entries ORDER BY subscription_id, postcode');
    expect(entries.rows).toEqual([
      { subscription_id: 'sub-a', postcode: '2000', pending: false },
      { subscription_id: 'sub-a', postcode: '2480', pending: false },
      { subscription_id: 'sub-a', postcode: '4000', pending: true },
    ]);
    const catchments = await pool.query('SELECT * FROM catchments ORDER BY subscription_id');
    expect(catchments.rows.map((r) => Object.keys(r).sort())).toEqual([
      ['subscription_id', 'updated_at'],
      ['subscription_id', 'updated_at'],
    ]);
  });
});

describe('the initial schema', () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = postgres.pool(await postgres.createDatabase('schema'));
    await migrateDatabase(pool, quietLogger());
  });

  it('allows one active key per subscription and any number of revoked ones', async () => {
    await insertAccount(pool, 'acct-1');
    await insertAccount(pool, 'acct-2');
    await pool.query(INSERT_KEY, keyRow('acct-1', 'active'));

    await expect(pool.query(INSERT_KEY, keyRow('acct-1', 'active'))).rejects.toMatchObject({
      code: '23505',
      constraint: 'api_keys_one_active_per_subscription',
    });
    for (let i = 0; i < 5; i++) await pool.query(INSERT_KEY, keyRow('acct-1', 'revoked'));
    // Another organisation's active key is its own business.
    await pool.query(INSERT_KEY, keyRow('acct-2', 'active'));

    const { rows } = await pool.query(
      "SELECT status, count(*)::int AS n FROM api_keys WHERE account_id = 'acct-1' GROUP BY status ORDER BY status",
    );
    expect(rows).toEqual([
      { status: 'active', n: 1 },
      { status: 'revoked', n: 5 },
    ]);
    // Revoking the active key makes room for a new one (what regenerate does in one transaction).
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        "UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE account_id = 'acct-1' AND status = 'active'",
      );
      await client.query(INSERT_KEY, keyRow('acct-1', 'active'));
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });

  it('lets exactly one of two concurrent transactions create an active key for an account', async () => {
    await insertAccount(pool, 'acct-race');
    const [c1, c2] = [await pool.connect(), await pool.connect()];
    try {
      await c1.query('BEGIN');
      await c2.query('BEGIN');
      // Both see no active key, as two requests racing through "generate" would.
      for (const c of [c1, c2]) {
        const { rows } = await c.query("SELECT 1 FROM api_keys WHERE account_id = 'acct-race' AND status = 'active'");
        expect(rows).toEqual([]);
      }
      await c1.query(INSERT_KEY, keyRow('acct-race', 'active'));
      // The second insert waits on the first transaction's uncommitted index entry, then fails when it commits.
      const second = c2.query(INSERT_KEY, keyRow('acct-race', 'active')).then(
        () => 'inserted',
        (err: { code?: string }) => err.code,
      );
      await c1.query('COMMIT');
      expect(await second).toBe('23505');
      await c2.query('ROLLBACK');
    } finally {
      c1.release();
      c2.release();
    }
    const { rows } = await pool.query(
      "SELECT count(*)::int AS n FROM api_keys WHERE account_id = 'acct-race' AND status = 'active'",
    );
    expect(rows[0].n).toBe(1);
  });

  it('refuses a second account whose email differs only in case', async () => {
    await insertAccount(pool, 'Case');
    await expect(
      pool.query(
        "INSERT INTO accounts (id, email, password_hash, created_at) VALUES ('x', 'CASE@clinic.example', 'h', now())",
      ),
    ).rejects.toMatchObject({ code: '23505', constraint: 'accounts_email_unique' });
  });

  it('keeps the audit trail append-only', async () => {
    await pool.query(
      "INSERT INTO audit_events (at, event, source, account_id, email) VALUES (now(), 'login', 'web', 'a', 'a@b.c')",
    );
    await expect(pool.query("UPDATE audit_events SET email = 'x@y.z'")).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(pool.query('DELETE FROM audit_events')).rejects.toThrow(/append-only: DELETE refused/);
    await expect(pool.query('TRUNCATE audit_events')).rejects.toThrow(/append-only: TRUNCATE refused/);
    expect((await pool.query('SELECT count(*)::int AS n FROM audit_events')).rows[0].n).toBe(1);
  });

  it('announces a data_version bump on commit only', async () => {
    const listener = await pool.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    try {
      await listener.query('LISTEN data_version');
      const writer = await pool.connect();
      try {
        await writer.query('BEGIN');
        const { rows } = await writer.query(
          "UPDATE data_version SET version = version + 1, changed_at = now() WHERE name = 'declarations' RETURNING version",
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(heard).toEqual([]);
        await writer.query('COMMIT');
        await expect.poll(() => heard, { timeout: 2000 }).toEqual([`declarations:${rows[0].version}`]);
      } finally {
        writer.release();
      }
    } finally {
      await listener.query('UNLISTEN *');
      listener.release();
    }
  });
});

describe('migration 0010: organisations', () => {
  it('makes each account the owner of an organisation that takes over its subscription and keys, as the JSON upgrade does', async () => {
    const pool = postgres.pool(await freshDatabase());
    const known = await loadMigrations();
    await migrateDatabase(pool, { ...quietLogger(), migrations: known.filter((m) => m.version < 10) });
    // Two clinics as the schema before it held them: an account, its subscription, its keys.
    for (const [id, email] of [
      ['acct-a', 'a@clinic.example'],
      ['acct-b', 'b@clinic.example'],
    ] as const) {
      await pool.query(`INSERT INTO accounts (id, email, password_hash, created_at) VALUES ($1, $2, 'h', $3)`, [
        id,
        email,
        '2026-01-02T03:04:05.678Z',
      ]);
      await pool.query(
        `INSERT INTO subscriptions (id, account_id, plan, status, expires_at, rate_limit, updated_at)
         VALUES ($1, $2, 'Clinic-Wide Access', 'active', NULL, 100, now())`,
        [`sub-${id}`, id],
      );
      await pool.query(INSERT_KEY, keyRow(id, 'active'));
    }

    await migrateDatabase(pool, quietLogger());

    const legacy = {
      accounts: [
        { id: 'acct-a', email: 'a@clinic.example', created_at: '2026-01-02T03:04:05.678Z' },
        { id: 'acct-b', email: 'b@clinic.example', created_at: '2026-01-02T03:04:05.678Z' },
      ],
      subscriptions: [
        { id: 'sub-acct-a', account_id: 'acct-a' },
        { id: 'sub-acct-b', account_id: 'acct-b' },
      ],
    };
    const upgraded = accountsToOrganisations(legacy) as Pick<AccountsFile, 'organisations' | 'members'> & {
      subscriptions: { id: string; organisation_id: string }[];
    };
    const organisations = await pool.query(
      `SELECT id, name, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
       FROM organisations ORDER BY id`,
    );
    expect(organisations.rows).toEqual(upgraded.organisations);
    const members = await pool.query('SELECT organisation_id, account_id, role FROM members ORDER BY account_id');
    expect(members.rows).toEqual(
      upgraded.members.map(({ organisation_id, account_id, role }) => ({ organisation_id, account_id, role })),
    );
    const subscriptions = await pool.query('SELECT id, organisation_id FROM subscriptions ORDER BY id');
    expect(subscriptions.rows).toEqual(upgraded.subscriptions);

    // The organisation's key outlives the account that created it; one active key per subscription still.
    await pool.query("DELETE FROM accounts WHERE id = 'acct-a'");
    const keys = await pool.query("SELECT account_id, status FROM api_keys WHERE subscription_id = 'sub-acct-a'");
    expect(keys.rows).toEqual([{ account_id: null, status: 'active' }]);
    await expect(pool.query(INSERT_KEY, keyRow('acct-b', 'active'))).rejects.toMatchObject({
      code: '23505',
      constraint: 'api_keys_one_active_per_subscription',
    });
  });
});

describe('migration 0011: invitations and password resets', () => {
  const HASH = (n: number) => n.toString(16).padStart(64, '0');
  const INSERT_INVITATION = `INSERT INTO invitations (id, organisation_id, email, role, token_hash, invited_by, created_at, expires_at)
    VALUES ($1, $2, $3, $4, $5, NULL, now(), now() + interval '7 days')`;
  const INSERT_RESET = `INSERT INTO password_resets (id, account_id, token_hash, created_at, expires_at)
    VALUES ($1, $2, $3, now(), now() + interval '2 hours')`;

  it('adds both tables to a database of the schema before it, whose accounts keep working', async () => {
    const pool = postgres.pool(await freshDatabase());
    const known = await loadMigrations();
    await migrateDatabase(pool, { ...quietLogger(), migrations: known.filter((m) => m.version < 11) });
    await insertAccount(pool, 'acct-before');
    expect(await tables(pool)).not.toContain('invitations');

    const result = await migrateDatabase(pool, { ...quietLogger(), migrations: known.filter((m) => m.version <= 11) });

    expect(result.applied).toEqual([11]);
    expect(await tables(pool)).toEqual(expect.arrayContaining(['invitations', 'password_resets']));
    await pool.query(INSERT_INVITATION, ['inv-1', 'org-acct-before', 'new@clinic.example', 'member', HASH(1)]);
    await pool.query(INSERT_RESET, ['reset-1', 'acct-before', HASH(2)]);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM accounts');
    expect(rows[0].n).toBe(1);
  });

  it('keeps one invitation per organisation and email, one reset per account, hashes only, and cascades', async () => {
    const pool = await migrated();
    await insertAccount(pool, 'acct-a');
    await insertAccount(pool, 'acct-b');
    await pool.query(INSERT_INVITATION, ['inv-1', 'org-acct-a', 'x@clinic.example', 'admin', HASH(1)]);
    // The same email may be invited by another organisation.
    await pool.query(INSERT_INVITATION, ['inv-2', 'org-acct-b', 'x@clinic.example', 'admin', HASH(2)]);
    for (const [values, constraint] of [
      [['inv-3', 'org-acct-a', 'x@clinic.example', 'member', HASH(3)], 'invitations_organisation_email'],
      [['inv-4', 'org-acct-a', 'y@clinic.example', 'member', HASH(1)], 'invitations_token_hash'],
    ] as const) {
      await expect(pool.query(INSERT_INVITATION, [...values])).rejects.toMatchObject({ code: '23505', constraint });
    }
    // Not a hash (a raw token, say), or a role that does not exist: refused.
    await expect(
      pool.query(INSERT_INVITATION, ['inv-5', 'org-acct-a', 'z@clinic.example', 'member', 'A'.repeat(43)]),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      pool.query(INSERT_INVITATION, ['inv-6', 'org-acct-a', 'z@clinic.example', 'boss', HASH(6)]),
    ).rejects.toMatchObject({ code: '23514' });
    await pool.query(INSERT_RESET, ['reset-1', 'acct-a', HASH(7)]);
    await expect(pool.query(INSERT_RESET, ['reset-2', 'acct-a', HASH(8)])).rejects.toMatchObject({
      code: '23505',
      constraint: 'password_resets_account',
    });

    await pool.query("DELETE FROM accounts WHERE id = 'acct-a'");
    expect((await pool.query('SELECT id FROM password_resets')).rows).toEqual([]);
    await pool.query("DELETE FROM organisations WHERE id = 'org-acct-a'");
    expect((await pool.query('SELECT id FROM invitations')).rows).toEqual([{ id: 'inv-2' }]);
  });

  it('lets the audit trail hold every event the service records, invitations and resets included', async () => {
    const pool = await migrated();
    expect(AuditEventType.options).toEqual(expect.arrayContaining(['invitation_accepted', 'password_reset']));
    for (const event of AuditEventType.options) {
      await pool.query(
        `INSERT INTO audit_events (at, event, source, account_id, email) VALUES (now(), $1, 'web', NULL, NULL)`,
        [event],
      );
    }
    await expect(
      pool.query(`INSERT INTO audit_events (at, event, source) VALUES (now(), 'invitation_stolen', 'web')`),
    ).rejects.toMatchObject({ code: '23514' });
  });
});
