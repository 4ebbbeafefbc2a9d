import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { sydneyToday } from '../../../shared/domain/dates';
import type { AccountsFile } from '../../../server/accounts/account-records';
import { JsonLinesAuditLog } from '../../../server/audit/audit-log';
import { PostgresAuditLog } from '../../../server/audit/postgres-audit-log';
import type { DeclarationsFile } from '../../../server/declarations/declaration-records';
import { type IngestStateFile } from '../../../server/ingest/ingest-state';
import type { ApiKeyRecord, KeysFile } from '../../../server/keys/key-records';
import { API_KEYS } from '../../../server/keys/key-tables';
import { ACCOUNTS, INVITATIONS, PASSWORD_RESETS, SUBSCRIPTIONS } from '../../../server/accounts/account-tables';
import { sessionKey } from '../../../server/sessions/session-store';
import { importDataDir } from '../../../server/importers';
import { ImportError } from '../../../server/storage/import/import-error';
import { loadMigrations, migrateDatabase, SchemaTooNewError } from '../../../server/storage/postgres/migrate';
import { fixtureDeclarations } from '../../fixtures/declarations';
import { usePostgresServer } from '../../helpers/postgres-per-file';
import { runAdminWith, type CliResult } from '../../helpers/run-cli';
import { tempDir } from '../../helpers/temp-dir';
import { openDataDir, seedAccount } from '../../helpers/test-server';
import { ingestStateDocument } from '../../../server/ingest/ingest-state-document';
import { openJsonDocument } from '../../../server/storage/document';
import { isPlainText } from '../../../shared/domain/text-hygiene';

// A real PostgreSQL on loopback, one for the file; each test gets its own database and DATA_DIR.
const postgres = usePostgresServer();
let dbCount = 0;

const quiet = { logger: { info: () => undefined, warn: () => undefined } };

async function freshDatabase(): Promise<{ url: string; pool: pg.Pool }> {
  const url = await postgres.createDatabase(`import_${++dbCount}`);
  return { url, pool: postgres.pool(url) };
}

/** `npm run admin -- migrate-json-to-postgres` as npm runs it, with DATABASE_URL set or not (and nothing else set). */
function runImport(dataDir: string, databaseUrl: string | undefined, args: string[] = []): Promise<CliResult> {
  return runAdminWith(
    {
      DATA_DIR: dataDir,
      // SESSION_SECRET: the configuration refuses DATABASE_URL without one (the server's rule; the import needs none).
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl, SESSION_SECRET: 'x'.repeat(40) }),
    },
    ['migrate-json-to-postgres', ...args],
    { timeoutMs: 20_000 },
  );
}

/** Exit 1 with one line on standard error (no stack trace, no usage) and nothing on standard output. */
function expectOneLineFailure(result: CliResult, message: RegExp): void {
  expect(result.code, result.stdout + result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(/^Error: /);
  expect(result.stderr).toMatch(message);
}

const TABLES = [
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
  'invitations',
  'password_resets',
  'data_version',
] as const;

/** Every row of the service's tables as JSON text, in a fixed order: equal snapshots = an unchanged database. */
async function snapshot(pool: pg.Pool): Promise<Record<string, string[]>> {
  const { rows } = await pool.query<{ exists: boolean }>("SELECT to_regclass('public.accounts') IS NOT NULL AS exists");
  if (!rows[0]!.exists) return {};
  const out: Record<string, string[]> = {};
  for (const table of TABLES) {
    const result = await pool.query<{ j: string }>(`SELECT row_to_json(t)::text AS j FROM ${table} t ORDER BY 1`);
    out[table] = result.rows.map((r) => r.j);
  }
  return out;
}

async function versions(pool: pg.Pool): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ name: string; version: string }>('SELECT name, version FROM data_version');
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.version)]));
}

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

/** 64 hex characters that are no key's hash (the archive's records are written by hand). */
const fakeHash = (n: number) => n.toString(16).padStart(64, 'a');

interface Built {
  dataDir: string;
  /** Every raw key issued while building: none may reach the database or the output. */
  rawKeys: string[];
  accountIds: string[];
  archived: ApiKeyRecord[];
}

/**
 * A DATA_DIR as a server leaves it, built with the services themselves: three accounts (one with a key regenerated
 * over "HTTP", so with revoked keys, key actions and audit events), declarations with a refresh time, an ingest
 * state, sessions, revoked keys in keys-archive.jsonl (with a torn last line), and a torn last line in audit.jsonl.
 */
async function buildDataDir(): Promise<Built> {
  const dataDir = await tempDir('dte-import-');
  const rawKeys: string[] = [];
  const data = await openDataDir(dataDir);
  const web = { source: 'web', ip: '203.0.113.7' } as const;
  const admin = { source: 'admin' } as const;
  const a = await seedAccount(data, { rateLimit: 250 });
  rawKeys.push(a.apiKey!);
  for (let i = 0; i < 3; i++) {
    rawKeys.push((await data.keys.regenerate(a.accountId, data.clock(), { limited: true, by: web })).api_key);
  }
  const b = await seedAccount(data, { withKey: false, status: 'inactive' });
  const c = await data.accounts.createAccount('Front.Desk@Clinic-Three.example', 'a long enough password', {
    by: admin,
  });
  await data.accounts.setSubscription(
    'front.desk@clinic-three.example',
    { status: 'active', expires: '2031-06-30', rateLimit: 40 },
    { by: admin },
  );
  rawKeys.push((await data.keys.generate(c.id, data.clock(), { limited: true, by: web })).api_key);
  await data.audit.record({
    event: 'login_failed',
    source: 'web',
    ip: '198.51.100.1',
    account_id: null,
    email: 'x@y.z',
  });
  // The catchment's and the webhook's events, with the columns only they fill.
  const who = { source: 'web', ip: '198.51.100.2', account_id: c.id, email: c.email } as const;
  await data.audit.record({ event: 'catchment_saved', ...who, postcode_count: 42 });
  await data.audit.record({ event: 'webhook_replaced', ...who, webhook_host: 'alerts.clinic-it.example:8443' });
  await data.declarations.store.update((file) => {
    file.declarations = fixtureDeclarations(sydneyToday(new Date()));
    file.last_updated = '2026-03-01T02:03:04.567Z';
  });
  // A pending invitation and a password-reset link (their tokens' hashes only), as the server leaves them.
  const accountsStore = await data.storage.accounts();
  await accountsStore.update((file) => {
    const organisation_id = file.members.find((m) => m.account_id === a.accountId)!.organisation_id;
    file.invitations.push({
      id: 'invitation-1',
      organisation_id,
      email: 'new.gp@clinic-one.example',
      role: 'member',
      token_hash: fakeHash(7),
      invited_by: a.email,
      created_at: '2026-03-01T01:00:00.000Z',
      expires_at: '2026-03-08T01:00:00.000Z',
    });
    file.password_resets.push({
      id: 'reset-1',
      account_id: b.accountId,
      token_hash: fakeHash(8),
      created_at: '2026-03-01T02:00:00.000Z',
      expires_at: '2026-03-01T04:00:00.000Z',
    });
  });
  const accountsFile = await readJson<AccountsFile>(path.join(dataDir, 'accounts.json'));
  const organisationOfA = accountsFile.members.find((m) => m.account_id === a.accountId)!.organisation_id;
  const subscriptionOfA = accountsFile.subscriptions.find((s) => s.organisation_id === organisationOfA)!;
  await data.close();

  const ingest = await openJsonDocument(ingestStateDocument, dataDir);
  await ingest.update((state) => {
    state.last_attempt_at = '2026-03-01T02:00:00.001Z';
    state.last_success_at = '2026-03-01T02:03:04.567Z';
    state.unmatched_lga_names = [{ agrn: '1195', state: 'QLD', name: 'Nowhere Shire' }];
    state.history = [
      {
        started_at: '2026-03-01T02:00:00.001Z',
        finished_at: '2026-03-01T02:03:04.567Z',
        trigger: 'schedule',
        ok: true,
        duration_ms: 184_566,
        error: null,
        counts: null,
      },
    ];
  });
  await ingest.close();

  await writeFile(
    path.join(dataDir, 'sessions.json'),
    JSON.stringify({
      schema_version: 1,
      sessions: {
        [sessionKey('session-id-one')]: {
          account_id: a.accountId,
          created_at: '2026-03-02T08:00:00.000Z',
          last_seen_at: '2026-03-02T08:10:00.123Z',
          cookie: { path: '/', httpOnly: true, originalMaxAge: 1_800_000, sameSite: 'lax' },
        },
        [sessionKey('session-id-two')]: {
          account_id: c.id,
          created_at: '2026-03-02T09:00:00.000Z',
          last_seen_at: '2026-03-02T09:00:00.000Z',
          cookie: { path: '/' },
        },
      },
    }),
  );

  const archived: ApiKeyRecord[] = [1, 2].map((n) => ({
    id: `archived-${n}`,
    account_id: a.accountId,
    subscription_id: subscriptionOfA.id,
    hash: fakeHash(n),
    prefix: `sk_live_Ar${n}x`,
    status: 'revoked',
    created_at: `2025-0${n}-01T00:00:00.00${n}Z`,
    revoked_at: `2025-0${n}-02T00:00:00.00${n}Z`,
    last_used_at: n === 1 ? '2025-01-01T12:00:00.000Z' : null,
  }));
  await writeFile(
    path.join(dataDir, 'keys-archive.jsonl'),
    // The second copy of a record (a crash between the archive's append and keys.json's rewrite) counts once.
    [...archived, archived[0]].map((r) => JSON.stringify(r)).join('\n') + '\n{"id":"torn-by-a-cra',
  );
  await appendFile(path.join(dataDir, 'audit.jsonl'), '{"at":"2026-03-0');

  return { dataDir, rawKeys, accountIds: [a.accountId, b.accountId, c.id], archived };
}

/** Lines of the report's table: name → [in DATA_DIR, new, already present]. */
function reportCounts(stdout: string): Record<string, number[]> {
  const counts: Record<string, number[]> = {};
  for (const line of stdout.split('\n')) {
    const m = /^([a-zA-Z][a-zA-Z ]*?)\s{2,}(\d+)\s+(\d+)\s+(\d+)$/.exec(line);
    if (m) counts[m[1]!] = [Number(m[2]), Number(m[3]), Number(m[4])];
  }
  return counts;
}

describe('npm run admin -- migrate-json-to-postgres', () => {
  it('copies a DATA_DIR into the database, row for row, and a second run changes nothing', async () => {
    const built = await buildDataDir();
    const { dataDir, rawKeys } = built;
    const { url, pool } = await freshDatabase();

    const first = await runImport(dataDir, url);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(reportCounts(first.stdout)).toEqual({
      accounts: [3, 3, 0],
      // Each account its own organisation's owner (three created by the services, not upgraded).
      organisations: [3, 3, 0],
      members: [3, 3, 0],
      subscriptions: [3, 3, 0],
      invitations: [1, 1, 0],
      'password resets': [1, 1, 0],
      // 4 for the first account (3 revoked by regenerate), 1 for the third, 2 from the archive.
      'api keys': [7, 7, 0],
      // Regenerate ×3 and generate, over "HTTP" (limited): 4 actions.
      'key actions': [4, 4, 0],
      // account_created, subscription_changed, key_regenerated ×3, key_generated, login_failed; the torn line skipped.
      'audit events': [9, 9, 0],
      declarations: [3, 3, 0],
      'declaration LGAs': [4, 4, 0],
      sessions: [2, 2, 0],
    });
    expect(first.stdout).toContain('api keys in DATA_DIR include 2 from keys-archive.jsonl');
    expect(first.stdout).toContain('declarations last updated: set to 2026-03-01T02:03:04.567Z');
    expect(first.stdout).toContain('ingest state: imported');
    expect(first.stdout).toContain('43 new rows in all.');
    expect(await versions(pool)).toEqual({
      accounts: 1,
      catchments: 0,
      keys: 1,
      declarations: 1,
      ingest_state: 1,
      postcode_correspondence: 0,
      webhooks: 0,
    });

    // Rows equal the files: ids, hashes, prefixes, times to the millisecond, subscription fields, LGAs in order.
    const accountsFile = await readJson<AccountsFile>(path.join(dataDir, 'accounts.json'));
    const accounts = await pool.query(`SELECT ${ACCOUNTS.select} FROM accounts ORDER BY id`);
    expect(accounts.rows.map(ACCOUNTS.fromRow)).toEqual(
      [...accountsFile.accounts].sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
    expect(accounts.rows.map((r) => r.email)).toContain('front.desk@clinic-three.example');
    const subscriptions = await pool.query(`SELECT ${SUBSCRIPTIONS.select} FROM subscriptions ORDER BY id`);
    expect(subscriptions.rows.map(SUBSCRIPTIONS.fromRow)).toEqual(
      [...accountsFile.subscriptions].sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
    expect(subscriptions.rows.map((r) => r.rate_limit).sort()).toEqual([100, 250, 40].sort());
    const invitations = await pool.query(`SELECT ${INVITATIONS.select} FROM invitations`);
    expect(invitations.rows.map(INVITATIONS.fromRow)).toEqual(accountsFile.invitations);
    const resets = await pool.query(`SELECT ${PASSWORD_RESETS.select} FROM password_resets`);
    expect(resets.rows.map(PASSWORD_RESETS.fromRow)).toEqual(accountsFile.password_resets);

    const keysFile = await readJson<KeysFile>(path.join(dataDir, 'keys.json'));
    const keys = await pool.query('SELECT * FROM api_keys ORDER BY id');
    expect(keys.rows.map(API_KEYS.fromRow)).toEqual(
      [...keysFile.keys, ...built.archived].sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
    // In document order (migration 0002's positions): the archive's older records first, then keys.json's.
    const ordered = await pool.query('SELECT id FROM api_keys ORDER BY position');
    expect(ordered.rows.map((r) => r.id)).toEqual([...built.archived, ...keysFile.keys].map((k) => k.id));
    const actions = await pool.query('SELECT account_id, at FROM key_actions ORDER BY id');
    expect(actions.rows.map((r) => [r.account_id, iso(r.at)])).toEqual(
      Object.entries(keysFile.key_actions).flatMap(([account, times]) => times.map((t) => [account, t])),
    );

    // The table read as the service reads it (in id order) gives back the file's events.
    const events = await JsonLinesAuditLog.inDataDir(dataDir).read();
    expect(await new PostgresAuditLog(pool).read()).toEqual(events);

    const declarationsFile = await readJson<DeclarationsFile>(path.join(dataDir, 'declarations.json'));
    const declarations = await pool.query(
      `SELECT d.agrn, d.title, d.state, d.hazard_type, d.start_date::text AS start_date, d.end_date::text AS end_date,
              d.url, d.sources,
              coalesce((SELECT json_agg(json_build_object('name', l.name, 'code', l.code) ORDER BY l.position)
                          FROM declaration_lgas l WHERE l.agrn = d.agrn), '[]') AS lgas
         FROM declarations d`,
    );
    const byAgrn = (x: { agrn: string }, y: { agrn: string }) => (x.agrn < y.agrn ? -1 : 1);
    expect(declarations.rows.sort(byAgrn)).toEqual([...declarationsFile.declarations].sort(byAgrn));
    const declarationOrder = await pool.query('SELECT agrn FROM declarations ORDER BY position');
    expect(declarationOrder.rows.map((r) => r.agrn)).toEqual(declarationsFile.declarations.map((d) => d.agrn));
    const meta = await pool.query('SELECT last_updated FROM declarations_meta');
    expect(iso(meta.rows[0].last_updated)).toBe(declarationsFile.last_updated);

    const ingestFile = await readJson<IngestStateFile & { schema_version: number }>(
      path.join(dataDir, 'ingest-state.json'),
    );
    const ingest = await pool.query('SELECT * FROM ingest_state');
    const { schema_version: _version, ...ingestState } = ingestFile;
    expect({
      ...ingest.rows[0],
      singleton: undefined,
      last_attempt_at: iso(ingest.rows[0].last_attempt_at),
      last_success_at: iso(ingest.rows[0].last_success_at),
    }).toEqual({ ...ingestState, singleton: undefined });

    const sessionsFile = await readJson<{ sessions: Record<string, unknown> }>(path.join(dataDir, 'sessions.json'));
    const sessions = await pool.query('SELECT * FROM sessions');
    expect(
      Object.fromEntries(
        sessions.rows.map((r) => [
          r.sid_hash,
          {
            account_id: r.account_id,
            created_at: iso(r.created_at),
            last_seen_at: iso(r.last_seen_at),
            cookie: r.cookie,
          },
        ]),
      ),
    ).toEqual(sessionsFile.sessions);

    // The second run: nothing new, the database byte for byte as it was, data_version not bumped.
    const before = await snapshot(pool);
    const second = await runImport(dataDir, url);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const counts = reportCounts(second.stdout);
    expect(Object.keys(counts)).toHaveLength(12);
    for (const [table, [inDataDir, inserted, present]] of Object.entries(counts)) {
      expect({ table, inserted, present }).toEqual({ table, inserted: 0, present: inDataDir });
    }
    expect(second.stdout).toContain('Nothing new: 0 rows inserted, the database is unchanged.');
    expect(second.stdout).toContain("ingest state: kept the database's");
    expect(second.stdout).toContain("declarations last updated: kept the database's");
    expect(await snapshot(pool)).toEqual(before);

    // No raw key anywhere: not in the output, not in any table.
    const everything = JSON.stringify(before) + first.stdout + first.stderr + second.stdout + second.stderr;
    for (const key of rawKeys) expect(everything).not.toContain(key.slice(12));
  });

  it('refuses without DATABASE_URL, in one line', async () => {
    const { dataDir } = await buildEmptyDir();
    const result = await runImport(dataDir, undefined);
    expectOneLineFailure(result, /DATABASE_URL is not set/);
    const usage = await runImport(dataDir, 'postgresql://postgres@127.0.0.1:1/x', ['--email', 'a@b.c']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('migrate-json-to-postgres takes no options');
  });

  it('an account in the database whose email differs only in case: exit 1 naming it, the database unchanged', async () => {
    const { dataDir } = await buildDataDir();
    const { url, pool } = await freshDatabase();
    await migrateDatabase(pool, quiet);
    const accountsFile = await readJson<AccountsFile>(path.join(dataDir, 'accounts.json'));
    const victim = accountsFile.accounts[1]!;
    await pool.query(
      `INSERT INTO accounts (id, email, password_hash, created_at) VALUES ('someone-else', $1, 'scrypt$x', now())`,
      [victim.email.toUpperCase()],
    );
    const before = await snapshot(pool);

    const result = await runImport(dataDir, url);

    expectOneLineFailure(result, /nothing was imported \(rolled back\): accounts: .*accounts_email_unique/);
    expect(result.stderr).toContain(victim.email);
    expect(await snapshot(pool)).toEqual(before);
  });

  it('a NUL in an address or a name, a look-alike address: those records reported and left out, the others imported', async () => {
    const { dataDir, accountIds, rawKeys } = await buildDataDir();
    const [a, b, c] = accountIds as [string, string, string];
    const file = path.join(dataDir, 'accounts.json');
    const accountsFile = await readJson<AccountsFile>(file);
    const account = (id: string) => accountsFile.accounts.find((x) => x.id === id)!;
    const organisationOf = (id: string) => accountsFile.members.find((m) => m.account_id === id)!.organisation_id;
    // What the JSON server stored before such text was refused: b's address with a NUL, the name of c's practice
    // with one, and a's address with a trailing dot (which reads as the address without it).
    const normalA = account(a).email;
    account(a).email = `${normalA}.`;
    account(b).email = `ex\u0000ists@clinic-two.example`;
    const badOrganisation = accountsFile.organisations.find((o) => o.id === organisationOf(c))!;
    badOrganisation.name = 'Clinic\u0000Three';
    // And an invitation to a Cyrillic look-alike of a's address.
    accountsFile.invitations.push({
      ...accountsFile.invitations[0]!,
      id: 'invitation-2',
      token_hash: fakeHash(9),
      email: normalA.replace('c', '\u0441'),
    });
    await writeFile(file, JSON.stringify(accountsFile));
    // A failed sign-in's address with a NUL in the audit trail (before its torn last line).
    const audit = path.join(dataDir, 'audit.jsonl');
    const lines = (await readFile(audit, 'utf8')).split('\n');
    lines.splice(
      1,
      0,
      JSON.stringify({ ...JSON.parse(lines[0]!), event: 'login_failed', email: 'ex\u0000ists@x.example' }),
    );
    await writeFile(audit, lines.join('\n'));
    const { url, pool } = await freshDatabase();

    const result = await runImport(dataDir, url);

    expect(result.code, result.stdout + result.stderr).toBe(0);
    const report = result.stdout;
    expect(report).toContain(`accounts.json: account ${b} ("ex\\u0000ists@clinic-two.example") left out`);
    expect(report).toContain(
      `accounts.json: organisation ${badOrganisation.id} ("Clinic\\u0000Three") left out with its 1 member account(s)`,
    );
    expect(report).toContain(`accounts.json: account ${a}: ${JSON.stringify(`${normalA}.`)} imported as ${normalA}`);
    // The look-alike letter shows as what it is.
    const lookAlike = `\\u0441${normalA.slice(1)}`;
    expect(report).toContain(
      `invitation invitation-2 (to "${lookAlike}") left out: its e-mail address must be printable ASCII`,
    );
    expect(report).toMatch(/audit\.jsonl: the login_failed event of .* left out: email holds a NUL/);
    // No raw control character, no password hash, no key in the report.
    expect(isPlainText(report.replace(/\n/g, ' '))).toBe(true);
    expect(report).not.toContain('scrypt$');
    for (const key of rawKeys) expect(report).not.toContain(key);
    expect(reportCounts(report)).toMatchObject({
      accounts: [1, 1, 0],
      organisations: [2, 2, 0],
      invitations: [1, 1, 0],
    });

    const emails = await pool.query<{ id: string; email: string }>('SELECT id, email FROM accounts ORDER BY id');
    expect(emails.rows).toEqual([{ id: a, email: normalA }]);
    const organisations = await pool.query<{ id: string }>('SELECT id FROM organisations');
    expect(organisations.rows.map((o) => o.id).sort()).toEqual([organisationOf(a), organisationOf(b)].sort());
    // c's key, its sessions and its subscription stayed out with its practice; a's are in.
    const keys = await pool.query<{ account_id: string | null }>('SELECT DISTINCT account_id FROM api_keys');
    expect(keys.rows).toEqual([{ account_id: a }]);
    const sessions = await pool.query<{ account_id: string }>('SELECT account_id FROM sessions');
    expect(sessions.rows).toEqual([{ account_id: a }]);
    const events = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_events WHERE email LIKE 'ex%'",
    );
    expect(events.rows[0]!.n).toBe(0);
  });

  it('a broken keys.json: exit 1 naming the file, nothing written to the database', async () => {
    const { dataDir } = await buildDataDir();
    const { url, pool } = await freshDatabase();
    await migrateDatabase(pool, quiet);
    const before = await snapshot(pool);
    await writeFile(path.join(dataDir, 'keys.json'), '{"schema_version": 1, "keys": [{"id": "k"');

    const result = await runImport(dataDir, url);

    expectOneLineFailure(result, /keys\.json/);
    expect(await snapshot(pool)).toEqual(before);
  });

  it('a database migrated by a newer release: exit 1, one line', async () => {
    const { dataDir } = await buildEmptyDir();
    const { url, pool } = await freshDatabase();
    await migrateDatabase(pool, quiet);
    await pool.query(`INSERT INTO schema_migrations (version, name, checksum) VALUES (999, 'future', 'x')`);

    const result = await runImport(dataDir, url);

    expectOneLineFailure(result, /schema is at version 999.*upgrade the service/);
    await expect(importDataDir(pool, dataDir, quiet)).rejects.toBeInstanceOf(SchemaTooNewError);
  });

  it('two active keys of one subscription in keys.json: rolled back, naming the subscription', async () => {
    const { dataDir, accountIds } = await buildDataDir();
    const { pool } = await freshDatabase();
    await migrateDatabase(pool, quiet);
    const before = await snapshot(pool);
    const file = path.join(dataDir, 'keys.json');
    const keys = await readJson<KeysFile & { schema_version: number }>(file);
    const active = keys.keys.find((k) => k.account_id === accountIds[0] && k.status === 'active')!;
    keys.keys.push({ ...active, id: 'second-active', hash: fakeHash(99) });
    await writeFile(file, JSON.stringify(keys));

    const error = await importDataDir(pool, dataDir, quiet).then(
      () => undefined,
      (err: unknown) => err,
    );

    expect(error).toBeInstanceOf(ImportError);
    expect((error as Error).message).toMatch(
      /^nothing was imported \(rolled back\): api keys: .*api_keys_one_active_per_subscription/,
    );
    expect((error as Error).message).toContain(active.subscription_id);
    expect(await snapshot(pool)).toEqual(before);
  });

  it('a DATA_DIR without files: all counts 0, and no file is created in it', async () => {
    const { dataDir } = await buildEmptyDir();
    const { pool } = await freshDatabase();

    const report = await importDataDir(pool, dataDir, quiet);

    expect(report.inserted).toBe(0);
    expect(report.bumped).toEqual([]);
    expect(report.accounts).toEqual({ inDataDir: 0, inserted: 0, alreadyPresent: 0 });
    expect(report.auditEvents).toEqual({ inDataDir: 0, inserted: 0, alreadyPresent: 0 });
    expect(report.ingestState).toEqual({ inDataDir: false, imported: false });
    expect(report.declarationsLastUpdated).toEqual({ inDataDir: null, before: null, updated: false });
    expect(report.schema.applied).toEqual((await loadMigrations()).map((m) => m.version));
    expect(await readdir(dataDir)).toEqual([]);

    await expect(importDataDir(pool, path.join(dataDir, 'missing'), quiet)).rejects.toThrow(
      /DATA_DIR .*missing does not exist/,
    );
  });

  it('audit events: a run after audit.jsonl grew imports only the new lines, in order; repeats count as copies', async () => {
    const { dataDir } = await buildEmptyDir();
    const { pool } = await freshDatabase();
    const log = JsonLinesAuditLog.inDataDir(dataDir);
    const at = new Date('2026-04-01T00:00:00.001Z');
    const failed = {
      event: 'login_failed',
      source: 'web',
      ip: '192.0.2.1',
      account_id: null,
      email: 'a@b.example',
    } as const;
    // The same failed login twice in one millisecond: two events, both kept.
    await log.record({ ...failed, at });
    await log.record({ ...failed, at });
    await log.record({ event: 'logout', source: 'web', ip: '192.0.2.1', account_id: 'acc-1', email: 'a@b.example' });

    expect((await importDataDir(pool, dataDir, quiet)).auditEvents).toEqual({
      inDataDir: 3,
      inserted: 3,
      alreadyPresent: 0,
    });
    expect((await importDataDir(pool, dataDir, quiet)).auditEvents).toEqual({
      inDataDir: 3,
      inserted: 0,
      alreadyPresent: 3,
    });

    // A server wrote one event to the table meanwhile; the file got two more, one of them a third copy.
    await pool.query(
      `INSERT INTO audit_events (at, event, source, account_id, email) VALUES (now(), 'login', 'admin', 'acc-9', NULL)`,
    );
    await log.record({ ...failed, at });
    await log.record({
      event: 'key_revoked',
      source: 'admin',
      account_id: 'acc-1',
      email: null,
      key_prefix: 'sk_live_Zz9a',
    });
    expect((await importDataDir(pool, dataDir, quiet)).auditEvents).toEqual({
      inDataDir: 5,
      inserted: 2,
      alreadyPresent: 3,
    });
    const { rows } = await pool.query('SELECT event, account_id, key_prefix FROM audit_events ORDER BY id');
    expect(rows.map((r) => r.event)).toEqual([
      'login_failed',
      'login_failed',
      'logout',
      'login',
      'login_failed',
      'key_revoked',
    ]);
    expect(await pool.query(`SELECT count(*)::int AS n FROM audit_events WHERE event = 'login_failed'`)).toMatchObject({
      rows: [{ n: 3 }],
    });
  });

  it('keeps what the database already has: rows with the same id, a newer refresh, an ingest state', async () => {
    const { dataDir, accountIds } = await buildDataDir();
    const { pool } = await freshDatabase();
    await migrateDatabase(pool, quiet);
    // The first account is already there (another password hash), as is declaration 900 (other title, one LGA);
    // the database was refreshed after the file, and has an ingest state of its own.
    const accountsFile = await readJson<AccountsFile>(path.join(dataDir, 'accounts.json'));
    const first = accountsFile.accounts.find((a) => a.id === accountIds[0])!;
    await pool.query(
      `INSERT INTO accounts (id, email, password_hash, created_at) VALUES ($1, $2, 'scrypt$database', now())`,
      [first.id, first.email],
    );
    await pool.query(
      `INSERT INTO declarations (agrn, title, state, start_date) VALUES ('900', 'The database''s title', 'NSW', '2020-01-01')`,
    );
    await pool.query(`INSERT INTO declaration_lgas (agrn, position, name) VALUES ('900', 0, 'Database LGA')`);
    await pool.query(`UPDATE declarations_meta SET last_updated = '2026-03-05T00:00:00.000Z'`);
    await pool.query(`UPDATE ingest_state SET last_attempt_at = '2026-03-05T00:00:00.000Z'`);

    const report = await importDataDir(pool, dataDir, quiet);

    expect(report.accounts).toEqual({ inDataDir: 3, inserted: 2, alreadyPresent: 1 });
    expect(report.declarations).toEqual({ inDataDir: 3, inserted: 2, alreadyPresent: 1 });
    expect(report.declarationLgas).toEqual({ inDataDir: 4, inserted: 3, alreadyPresent: 1 });
    expect(report.declarationsLastUpdated).toEqual({
      inDataDir: '2026-03-01T02:03:04.567Z',
      before: '2026-03-05T00:00:00.000Z',
      updated: false,
    });
    expect(report.ingestState).toEqual({ inDataDir: true, imported: false });
    expect(report.bumped).toEqual(['accounts', 'declarations', 'keys', 'sessions']);

    const kept = await pool.query('SELECT password_hash FROM accounts WHERE id = $1', [first.id]);
    expect(kept.rows[0].password_hash).toBe('scrypt$database');
    const declaration = await pool.query(
      `SELECT d.title, array_agg(l.name ORDER BY l.position) AS lgas
         FROM declarations d JOIN declaration_lgas l USING (agrn) WHERE agrn = '900' GROUP BY d.title`,
    );
    expect(declaration.rows).toEqual([{ title: "The database's title", lgas: ['Database LGA'] }]);
    const meta = await pool.query('SELECT last_updated FROM declarations_meta');
    expect(iso(meta.rows[0].last_updated)).toBe('2026-03-05T00:00:00.000Z');
    const ingest = await pool.query('SELECT last_attempt_at, history FROM ingest_state');
    expect(ingest.rows).toEqual([{ last_attempt_at: new Date('2026-03-05T00:00:00.000Z'), history: [] }]);
  });

  it('reads files of an older layout through the stores: no schema_version, no rate_limit', async () => {
    const { dataDir } = await buildEmptyDir();
    const { pool } = await freshDatabase();
    await writeFile(
      path.join(dataDir, 'accounts.json'),
      JSON.stringify({
        accounts: [
          {
            id: 'old-1',
            email: 'old@clinic.example',
            password_hash: 'scrypt$old',
            created_at: '2024-01-01T00:00:00.000Z',
          },
        ],
        subscriptions: [
          {
            id: 'old-sub-1',
            account_id: 'old-1',
            plan: 'Clinic-Wide Access',
            status: 'active',
            expires_at: null,
            updated_at: '2024-01-01T00:00:00.000Z',
          },
        ],
      }),
    );

    const report = await importDataDir(pool, dataDir, quiet);

    expect(report.subscriptions.inserted).toBe(1);
    const { rows } = await pool.query('SELECT rate_limit, status FROM subscriptions');
    expect(rows).toEqual([{ rate_limit: 100, status: 'active' }]);
  });
});

async function buildEmptyDir(): Promise<{ dataDir: string }> {
  return { dataDir: await tempDir('dte-import-empty-') };
}
