import { describe, expect, it } from 'vitest';
import { AccountService } from '../../../server/accounts/account-service';
import type { AccountsFile } from '../../../server/accounts/account-records';
import type { AuditRecorder } from '../../../server/audit/audit-log';
import { ContractError } from '../../../server/contract-error';
import { KeyService } from '../../../server/keys/key-service';
import type { Database } from '../../../server/storage/postgres/database';
import {
  UniqueViolationError,
  type PostgresDocumentStore,
} from '../../../server/storage/postgres/postgres-document-store';
import {
  accountsFixture,
  postgresDatabases,
  declarationsFixture,
  hashOf,
  ingestStateFixture,
  keyRecord,
  keysFixture,
} from './fixtures';
import { accountsDocument } from '../../../server/accounts/accounts-document';
import { declarationsDocument } from '../../../server/declarations/declarations-document';
import { ingestStateDocument } from '../../../server/ingest/ingest-state-document';
import { keysDocument } from '../../../server/keys/keys-document';
import { openPostgresDocument, type DocumentDeclaration } from '../../../server/storage/document';

/** A declared document's PostgreSQL store, as the registry opens it. */
const inPostgres =
  <T extends object>(declaration: DocumentDeclaration<T>) =>
  (db: Database) =>
    openPostgresDocument(declaration, db);

// One PostgreSQL for the file; each test its own database, opened by two "instances" (two pools, two listeners).
const { opened } = postgresDatabases();

type Opener<T> = (db: Database) => Promise<PostgresDocumentStore<T>>;

async function open<T>(opener: Opener<T>, db: Database): Promise<PostgresDocumentStore<T>> {
  return opened.track(await opener(db));
}

async function versionOf(db: Database, name: string): Promise<number> {
  const { rows } = await db.pool.query('SELECT version::int AS v FROM data_version WHERE name = $1', [name]);
  return rows[0].v;
}

async function count(db: Database, table: string, where = 'true'): Promise<number> {
  return (await db.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`)).rows[0].n;
}

/** Writes `content` through a store of `a`, then checks a store opened on `b` loads exactly what `a` holds. */
async function writeThenLoad<T extends object>(opener: Opener<T>, a: Database, b: Database, content: T) {
  const writer = await open(opener, a);
  await writer.update((draft) => void Object.assign(draft, structuredClone(content)));
  const reader = await open(opener, b);
  expect(JSON.stringify(reader.current)).toBe(JSON.stringify(writer.current));
  return { writer, reader };
}

/** After `reader`'s database syncs, it holds exactly what `writer` holds. */
async function expectSameAfterSync<T>(b: Database, reader: PostgresDocumentStore<T>, writer: PostgresDocumentStore<T>) {
  await b.versions.sync();
  expect(JSON.stringify(reader.current)).toBe(JSON.stringify(writer.current));
  expect(reader.version).toBe(writer.version);
}

const silentAudit: AuditRecorder = { record: async () => undefined };

describe('round trip: what one instance writes, another loads exactly', () => {
  it('accounts, organisations, members and subscriptions, in order, through inserts, changes, removals and reordering', async () => {
    const { dbs } = await opened.fresh(2);
    const [a, b] = dbs as [Database, Database];
    const fixture = accountsFixture();
    const { writer, reader } = await writeThenLoad(inPostgres(accountsDocument), a, b, fixture);
    expect(reader.current).toEqual(fixture);
    reader.watch();

    await writer.update((d) => {
      // Account 2 removed with its organisation (its membership and subscription with them), order changed.
      const gone = d.members.find((m) => m.account_id === d.accounts[1]!.id)!.organisation_id;
      d.accounts = [d.accounts[2]!, d.accounts[0]!];
      d.members = d.members.filter((m) => m.organisation_id !== gone);
      d.organisations = d.organisations.filter((o) => o.id !== gone);
      d.subscriptions = d.subscriptions.filter((s) => s.id !== 'sub-2');
      d.subscriptions[0]!.expires_at = null;
      d.subscriptions[0]!.rate_limit = 500;
      d.accounts.push({
        id: 'new',
        email: 'new@clinic.example',
        password_hash: 'h',
        created_at: '2026-05-01T00:00:00.000Z',
        email_verified_at: null,
      });
      d.organisations.push({ id: 'org-new', name: 'New clinic', created_at: '2026-05-01T00:00:00.000Z' });
      d.members.push({
        organisation_id: 'org-new',
        account_id: 'new',
        role: 'owner',
        created_at: '2026-05-01T00:00:00.000Z',
      });
      d.subscriptions.push({ ...fixture.subscriptions[1]!, id: 'sub-new', organisation_id: 'org-new' });
    });
    await expectSameAfterSync(b, reader, writer);
    expect(reader.current.accounts.map((x) => x.id)).toEqual([fixture.accounts[2]!.id, fixture.accounts[0]!.id, 'new']);
    expect(await count(a, 'subscriptions')).toBe(3);
  });

  it('keys and key actions; the table keeps every key, the document the newest ten revoked per account', async () => {
    const { dbs } = await opened.fresh(2);
    const [a, b] = dbs as [Database, Database];
    await (await open(inPostgres(accountsDocument), a)).update((d) => void Object.assign(d, accountsFixture()));
    const fixture = keysFixture();
    // Twelve more revoked keys for account 1, created after the fixture's.
    fixture.keys.push(...Array.from({ length: 12 }, (_, i) => keyRecord(10 + i, 1, 'revoked')));

    const { writer, reader } = await writeThenLoad(inPostgres(keysDocument), a, b, fixture);
    reader.watch();
    expect(await count(a, 'api_keys')).toBe(17);
    const revokedOf1 = reader.current.keys.filter((k) => k.account_id?.endsWith('1') && k.status === 'revoked');
    // The fixture's first two revoked keys of account 1, and the oldest of the twelve, are out of the document.
    expect(revokedOf1.map((k) => k.id)).toEqual(Array.from({ length: 10 }, (_, i) => `key-1-${12 + i}`));
    expect(reader.current.keys.filter((k) => k.status === 'active').map((k) => k.id)).toEqual(['key-2-2', 'key-1-4']);
    expect(reader.current.key_actions).toEqual(fixture.key_actions);
    expect(reader.current.keys[0]).toEqual(keyRecord(2, 2, 'active'));

    // A regenerate on account 1 and a usage flush, with the key action window moving on.
    await writer.update((d) => {
      const active = d.keys.find((k) => k.id === 'key-1-4')!;
      active.status = 'revoked';
      active.revoked_at = '2026-03-02T00:00:00.000Z';
      d.keys.push(keyRecord(40, 1, 'active'));
      d.keys.find((k) => k.id === 'key-2-2')!.last_used_at = '2026-03-02T01:02:03.004Z';
      const times = d.key_actions['6f1c2a7e-0000-4000-8000-000000000001']!;
      d.key_actions['6f1c2a7e-0000-4000-8000-000000000001'] = [times[1]!, times[2]!, '2026-03-02T00:00:00.000Z'];
      delete d.key_actions['6f1c2a7e-0000-4000-8000-000000000003'];
      d.key_actions['6f1c2a7e-0000-4000-8000-000000000002'] = ['2026-03-02T00:00:00.000Z'];
    });
    await expectSameAfterSync(b, reader, writer);
    // Nothing the document let go of was deleted; the new key is the one shown last.
    expect(await count(a, 'api_keys')).toBe(18);
    expect(await count(a, 'api_keys', "status = 'active'")).toBe(2);
    expect(reader.current.keys.at(-1)!.id).toBe('key-1-40');
    expect(reader.current.key_actions).toEqual({
      '6f1c2a7e-0000-4000-8000-000000000001': [
        '2026-03-01T00:00:01.001Z',
        '2026-03-01T00:10:00.500Z',
        '2026-03-02T00:00:00.000Z',
      ],
      '6f1c2a7e-0000-4000-8000-000000000002': ['2026-03-02T00:00:00.000Z'],
    });
    expect(await count(a, 'key_actions')).toBe(4);
  });

  it('declarations with their LGAs in order, dates as written, and last_updated', async () => {
    const { dbs } = await opened.fresh(2);
    const [a, b] = dbs as [Database, Database];
    const fixture = declarationsFixture();
    const { writer, reader } = await writeThenLoad(inPostgres(declarationsDocument), a, b, fixture);
    expect(reader.current).toEqual(fixture);
    reader.watch();

    // What a refresh does: a new declaration sorted first, one changed (its LGAs reordered), one gone.
    await writer.update((d) => {
      d.last_updated = '2026-03-03T19:00:00.001Z';
      d.declarations[0]!.lgas.reverse();
      d.declarations[0]!.end_date = '2026-03-03';
      d.declarations[1]!.title = 'Bushfires, East Gippsland';
      d.declarations.pop();
      d.declarations.unshift({
        agrn: '1200',
        title: 'Tropical Cyclone',
        state: 'QLD',
        hazard_type: 'Cyclone',
        start_date: '2026-03-03',
        end_date: null,
        url: null,
        lgas: [{ name: 'Cairns', code: '32250' }],
        sources: ['disasterassist'],
      });
    });
    await expectSameAfterSync(b, reader, writer);
    expect(reader.current.declarations.map((d) => d.agrn)).toEqual(['1200', '1195', '1102']);
    expect(reader.current.declarations[1]!.lgas.map((l) => l.name)).toEqual(['Byron Shire', 'Ballina', 'Lismore']);
    expect(await count(a, 'declaration_lgas')).toBe(4);
  });

  it('the ingest state, nested parts included', async () => {
    const { dbs } = await opened.fresh(2);
    const [a, b] = dbs as [Database, Database];
    const fixture = ingestStateFixture();
    const { writer, reader } = await writeThenLoad(inPostgres(ingestStateDocument), a, b, fixture);
    expect(reader.current).toEqual(fixture);
    reader.watch();

    await writer.update((d) => {
      d.last_error = null;
      d.history = [{ ...d.history[0]!, trigger: 'admin', started_at: '2026-03-04T00:00:00.000Z' }, ...d.history];
    });
    await expectSameAfterSync(b, reader, writer);
  });

  it('refuses a time it could not give back exactly, and writes nothing', async () => {
    const { dbs } = await opened.fresh(1);
    const store = await open(inPostgres(accountsDocument), dbs[0]!);
    const account = { ...accountsFixture().accounts[0]!, created_at: '2026-01-03T22:14:05+10:00' };
    await expect(store.update((d) => void d.accounts.push(account))).rejects.toThrow(/ISO time in UTC/);
    expect(await versionOf(dbs[0]!, 'accounts')).toBe(0);
    expect(store.current.accounts).toEqual([]);
  });
});

describe('updates', () => {
  function pushAccount(d: AccountsFile): number {
    const n = d.accounts.length;
    d.accounts.push({
      id: `acct-${n}`,
      email: `clinic-${n}@example.org`,
      password_hash: 'h',
      email_verified_at: null,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    });
    return n;
  }

  it('lose none of 50 concurrent read-modify-writes from two instances', async () => {
    const { dbs } = await opened.fresh(2);
    const [a, b] = dbs as [Database, Database];
    const stores = [await open(inPostgres(accountsDocument), a), await open(inPostgres(accountsDocument), b)];
    stores.forEach((s) => s.watch());

    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => stores[i % 2]!.update(pushAccount)));

    expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(await count(a, 'accounts')).toBe(50);
    expect(await versionOf(a, 'accounts')).toBe(50);
    await Promise.all([a.versions.sync(), b.versions.sync()]);
    for (const store of stores) {
      expect(store.current.accounts.map((x) => x.id)).toEqual(Array.from({ length: 50 }, (_, i) => `acct-${i}`));
    }
  });

  it('write nothing and leave the version when the change throws or breaks the schema', async () => {
    const { dbs } = await opened.fresh(1);
    const db = dbs[0]!;
    const store = await open(inPostgres(accountsDocument), db);
    await store.update(pushAccount);
    const before = JSON.stringify(store.current);

    await expect(
      store.update((d) => {
        pushAccount(d);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expect(store.update((d) => void (d.accounts[0]!.email = 'x'))).rejects.toThrow();

    expect(await versionOf(db, 'accounts')).toBe(1);
    expect(await count(db, 'accounts')).toBe(1);
    expect(JSON.stringify(store.current)).toBe(before);
    // And the store still works.
    expect(await store.update(pushAccount)).toBe(1);
    expect(await versionOf(db, 'accounts')).toBe(2);
  });

  it('leave the version alone when the change changes nothing', async () => {
    const { dbs } = await opened.fresh(1);
    const db = dbs[0]!;
    const store = await open(inPostgres(accountsDocument), db);
    await store.update(pushAccount);
    const heard: unknown[] = [];
    store.onChange((data) => heard.push(data));

    expect(await store.update((d) => d.accounts.length)).toBe(1);
    expect(await store.update((d) => void (d.accounts = d.accounts.map((x) => ({ ...x }))))).toBeUndefined();

    expect(await versionOf(db, 'accounts')).toBe(1);
    expect(heard).toEqual([]);
  });

  it("apply to the other instance's latest content, even when this one has not heard of it", async () => {
    const { dbs } = await opened.fresh(2);
    const [a, b] = dbs as [Database, Database];
    const [sa, sb] = [await open(inPostgres(accountsDocument), a), await open(inPostgres(accountsDocument), b)];
    await sa.update(pushAccount);
    const heard: number[] = [];
    sb.onChange((data) => heard.push(data.accounts.length));

    // Even a change that fails sees (and publishes) what the other wrote.
    await expect(
      sb.update((d) => {
        throw new Error(`saw ${d.accounts.length}`);
      }),
    ).rejects.toThrow('saw 1');
    expect(sb.current.accounts).toHaveLength(1);
    expect(await sb.update(pushAccount)).toBe(1);
    expect(heard).toEqual([1, 2]);
  });
});

describe('another instance', () => {
  it("holds this one's commit as soon as sync() returns (no listening, no waiting)", async () => {
    const { dbs } = await opened.fresh(2);
    const [a, b] = dbs as [Database, Database];
    const writer = await open(inPostgres(ingestStateDocument), a);
    const reader = await open(inPostgres(ingestStateDocument), b);
    b.versions.register(reader); // followed by sync() only: no LISTEN, no polling

    for (let i = 1; i <= 10; i++) {
      await writer.update((d) => void (d.history = [...d.history, ...ingestStateFixture().history.slice(0, 1)]));
      await b.versions.sync();
      expect(reader.current.history).toHaveLength(i);
      expect(reader.version).toBe(i);
    }
  });

  it('picks a commit up by itself within 2 s when watching', async () => {
    const { dbs } = await opened.fresh(2);
    const [a, b] = dbs as [Database, Database];
    const writer = await open(inPostgres(declarationsDocument), a);
    const reader = await open(inPostgres(declarationsDocument), b);
    reader.watch();
    const heard: number[] = [];
    reader.onChange((d) => heard.push(d.declarations.length));

    await writer.update((d) => void Object.assign(d, declarationsFixture()));

    await expect.poll(() => reader.current.declarations.length, { timeout: 2000, interval: 20 }).toBe(3);
    expect(heard).toEqual([3]);
  });
});

describe('keys across instances', () => {
  it('the database refuses a second active key for an account, whoever writes it', async () => {
    const { dbs } = await opened.fresh(1);
    const db = dbs[0]!;
    await (await open(inPostgres(accountsDocument), db)).update((d) => void Object.assign(d, accountsFixture()));
    const keys = await open(inPostgres(keysDocument), db);
    await keys.update((d) => void d.keys.push(keyRecord(1, 1, 'active')));

    // Written behind the store's back (no version bump): only the index stands in the way.
    const insert = `INSERT INTO api_keys (id, account_id, subscription_id, key_hash, key_prefix, status, created_at)
      VALUES ($1, '6f1c2a7e-0000-4000-8000-000000000001', 'sub-1', $2, 'sk_live_abcd', 'active', now())`;
    await expect(db.pool.query(insert, ['sql-key', hashOf('sql')])).rejects.toMatchObject({
      code: '23505',
      constraint: 'api_keys_one_active_per_subscription',
    });
    await db.pool.query("UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE id = 'key-1-1'");
    await db.pool.query(insert, ['sql-key', hashOf('sql')]);

    // The store does not know of the SQL key (no version bump), so its second active key reaches the database.
    const attempt = keys.update((d) => void d.keys.push(keyRecord(2, 1, 'active')));
    await expect(attempt).rejects.toBeInstanceOf(UniqueViolationError);
    await expect(attempt).rejects.toMatchObject({ constraint: 'api_keys_one_active_per_subscription', code: '23505' });
    expect(await count(db, 'api_keys', "status = 'active'")).toBe(1);
    expect(keys.current.keys.map((k) => k.id)).toEqual(['key-1-1']);
  });

  it('20 concurrent generate calls over two instances give one key; a revoke on one is refused by the other next', async () => {
    const { dbs } = await opened.fresh(2);
    const clock = () => new Date();
    const instances: { db: Database; accounts: AccountService; keys: KeyService }[] = [];
    for (const db of dbs) {
      const accountStore = await open(inPostgres(accountsDocument), db);
      const keyStore = await open(inPostgres(keysDocument), db);
      accountStore.watch();
      keyStore.watch();
      const accounts = new AccountService(accountStore, silentAudit, clock);
      instances.push({ db, accounts, keys: new KeyService(keyStore, accounts, silentAudit, clock) });
    }
    const [one, two] = instances as [(typeof instances)[number], (typeof instances)[number]];
    const account = await one.accounts.createAccount('frontdesk@clinic.example', 'correct horse battery');
    await one.accounts.setSubscription('frontdesk@clinic.example', { status: 'active' });
    await two.db.versions.sync();
    expect(two.accounts.findById(account.id)).toBeDefined();

    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => instances[i % 2]!.keys.generate(account.id)),
    );

    const created = outcomes.filter((o) => o.status === 'fulfilled');
    expect(created).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === 'rejected') expect(o.reason).toEqual(new ContractError('key_exists'));
    }
    const { api_key } = (created[0] as PromiseFulfilledResult<{ api_key: string }>).value;
    expect(await count(one.db, 'api_keys')).toBe(1);

    // Each instance's next request syncs first.
    for (const instance of instances) {
      await instance.db.versions.sync();
      expect(instance.keys.authenticate(api_key, new Date()).ok).toBe(true);
    }
    await one.keys.revoke(account.id);
    await two.db.versions.sync();
    expect(two.keys.authenticate(api_key, new Date())).toEqual({ ok: false, reason: 'invalid_api_key' });
  });
});
