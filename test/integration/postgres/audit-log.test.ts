import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../server/audit/audit-log';
import { JsonLinesAuditLog } from '../../../server/audit/audit-log';
import { PostgresAuditLog } from '../../../server/audit/postgres-audit-log';
import type { Database } from '../../../server/storage/postgres/database';
import { tempDir } from '../../helpers/temp-dir';
import { databases, postgresDatabases } from './fixtures';

const { postgres, opened } = postgresDatabases();

const RAW_KEY = 'sk_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab';
const clock = () => new Date('2026-03-01T09:00:00.123Z');

/** A session's worth of events, with a raw key slipped into fields that should never hold one. */
async function recordSample(log: { record: PostgresAuditLog['record'] }): Promise<void> {
  await log.record({
    event: 'account_created',
    source: 'web',
    ip: '203.0.113.7',
    account_id: 'a1',
    email: 'one@clinic.example',
  });
  await log.record({
    event: 'login_failed',
    source: 'web',
    ip: '198.51.100.2',
    account_id: null,
    email: 'nobody@x.example',
    reason: 'invalid_credentials',
  });
  await log.record({
    event: 'key_generated',
    source: 'web',
    ip: '::1',
    account_id: 'a1',
    email: 'one@clinic.example',
    key_prefix: RAW_KEY,
    at: new Date('2026-03-01T10:00:00.000Z'),
  });
  await log.record({
    event: 'subscription_changed',
    source: 'admin',
    account_id: 'a2',
    email: 'two@clinic.example',
    subscription: { status: 'active', expires_at: '2026-12-31T12:59:59.999Z', rate_limit: 250 },
  });
  await log.record({
    event: 'subscription_changed',
    source: 'admin',
    account_id: 'a2',
    email: 'two@clinic.example',
    subscription: { status: 'inactive', expires_at: null, rate_limit: 100 },
  });
  await log.record({
    event: 'login_failed',
    source: 'web',
    ip: '198.51.100.2',
    account_id: null,
    email: 'one@clinic.example',
    reason: `pasted ${RAW_KEY} as password`,
  });
  // Stored as given: the filter matches the normalised address exactly, as JsonLinesAuditLog's does.
  await log.record({
    event: 'login',
    source: 'web',
    ip: '203.0.113.7',
    account_id: 'a3',
    email: 'Mixed@Clinic.example',
  });
  await log.record({
    event: 'key_revoked',
    source: 'admin',
    account_id: 'a1',
    email: 'one@clinic.example',
    key_prefix: 'sk_live_AbCd',
  });
}

describe('PostgresAuditLog', () => {
  let db: Database;
  let events: AuditEvent[];
  let expected: JsonLinesAuditLog;
  // Open for the whole describe block (the per-test databases are closed after each test).
  let shared: ReturnType<typeof databases>;

  beforeAll(async () => {
    shared = databases(postgres);
    const { dbs } = await shared.fresh(1, 'audit');
    db = dbs[0]!;
    const log = new PostgresAuditLog(db.pool, clock);
    await recordSample(log);
    events = await log.read();
    // The JSON lines log of the same events: what the file backend gives, the reference.
    const dir = await tempDir('dte-audit-ref-');
    expected = new JsonLinesAuditLog(`${dir}/audit.jsonl`, clock);
    await recordSample(expected);
  });
  afterAll(async () => {
    await shared?.closeAll();
  });

  it('gives back every event as the JSON lines log does, oldest first', async () => {
    expect(events).toHaveLength(8);
    expect(JSON.stringify(events)).toBe(JSON.stringify(await expected.read()));
    expect(events[2]).toEqual({
      at: '2026-03-01T10:00:00.000Z',
      event: 'key_generated',
      source: 'web',
      account_id: 'a1',
      email: 'one@clinic.example',
      ip: '::1',
      key_prefix: 'sk_live_AbCd…',
    });
    expect(events[4]!.subscription).toEqual({ status: 'inactive', expires_at: null, rate_limit: 100 });
  });

  it('never stores a whole key, whichever field it came in', async () => {
    const { rows } = await db.pool.query('SELECT * FROM audit_events');
    expect(JSON.stringify(rows)).not.toContain(RAW_KEY.slice(12));
    expect(events[5]!.reason).toBe('pasted sk_live_AbCd… as password');
  });

  it('filters by email (normalised) or account, as JsonLinesAuditLog does', async () => {
    const log = new PostgresAuditLog(db.pool, clock);
    for (const filter of [
      { email: ' ONE@clinic.example ' },
      { accountId: 'a2' },
      { email: 'one@clinic.example', accountId: 'a2' },
      { email: 'mixed@clinic.example' },
      { accountId: 'nobody' },
      {},
    ]) {
      expect(JSON.stringify(await log.read(filter))).toBe(JSON.stringify(await expected.read(filter)));
    }
    expect((await log.read({ email: 'one@clinic.example' })).map((e) => e.event)).toEqual([
      'account_created',
      'key_generated',
      'login_failed',
      'key_revoked',
    ]);
  });

  it('is read by another instance in the order written, and concurrent writes are all kept', async () => {
    const { dbs } = await opened.fresh(2, 'audit_shared');
    const [a, b] = dbs as [Database, Database];
    const [la, lb] = [new PostgresAuditLog(a.pool), new PostgresAuditLog(b.pool)];
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? la : lb).record({
          event: 'login',
          source: 'web',
          ip: `10.0.0.${i}`,
          account_id: 'x',
          email: 'x@y.example',
        }),
      ),
    );
    await la.close();
    await lb.close();
    const fromA = await la.read({ accountId: 'x' });
    expect(fromA).toHaveLength(40);
    expect(await lb.read({ accountId: 'x' })).toEqual(fromA);
    // The order is the order of ids: what was recorded after a read comes after it.
    await la.record({ event: 'logout', source: 'web', ip: '10.0.0.99', account_id: 'x', email: 'x@y.example' });
    expect((await lb.read({ accountId: 'x' })).at(-1)!.event).toBe('logout');
  });

  it('refuses to change or delete what it holds (append-only table)', async () => {
    await expect(db.pool.query('DELETE FROM audit_events')).rejects.toThrow(/append-only/);
  });
});
