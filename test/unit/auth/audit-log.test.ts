import { appendFile, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonLinesAuditLog } from '../../../server/audit/audit-log';
import { generateApiKey } from '../../../server/keys/api-key';
import { tempDir } from '../../helpers/temp-dir';

describe('JsonLinesAuditLog', () => {
  it('appends one JSON line per event (mode 0600) and reads them back by email or account, oldest first', async () => {
    const dir = await tempDir();
    const log = JsonLinesAuditLog.inDataDir(dir, () => new Date('2026-11-22T00:00:00.000Z'));
    await log.record({ event: 'login', source: 'web', account_id: 'acc-1', email: 'a@x.test', ip: '10.0.0.1' });
    await log.record({
      event: 'login_failed',
      source: 'web',
      account_id: null,
      email: 'b@x.test',
      ip: '10.0.0.2',
      reason: 'invalid_credentials',
    });
    await log.record({
      event: 'subscription_changed',
      source: 'admin',
      account_id: 'acc-1',
      email: 'a@x.test',
      subscription: { status: 'active', expires_at: null, rate_limit: 100 },
      at: new Date('2026-11-22T01:00:00.000Z'),
    });
    const file = path.join(dir, 'audit.jsonl');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0]!)).toEqual({
      at: '2026-11-22T00:00:00.000Z',
      event: 'login',
      source: 'web',
      account_id: 'acc-1',
      email: 'a@x.test',
      ip: '10.0.0.1',
    });

    expect((await log.read({ email: 'A@X.TEST' })).map((e) => e.event)).toEqual(['login', 'subscription_changed']);
    expect((await log.read({ accountId: 'acc-1' })).map((e) => e.at)).toEqual([
      '2026-11-22T00:00:00.000Z',
      '2026-11-22T01:00:00.000Z',
    ]);
    expect(await log.read({ email: 'b@x.test' })).toEqual([
      expect.objectContaining({ account_id: null, reason: 'invalid_credentials' }),
    ]);
    expect(await log.read()).toHaveLength(3);
  });

  it('writes only the known fields, and cuts anything shaped like a whole key to its prefix', async () => {
    const dir = await tempDir();
    const log = JsonLinesAuditLog.inDataDir(dir);
    const key = generateApiKey();
    await log.record({
      event: 'key_generated',
      source: 'web',
      account_id: 'acc',
      email: 'a@x.test',
      key_prefix: key, // a careless caller passing the whole key
      ...({ password: 'secret-password', api_key: key } as object),
    } as Parameters<JsonLinesAuditLog['record']>[0]);
    const text = await readFile(path.join(dir, 'audit.jsonl'), 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(12));
    expect(text).not.toContain('secret-password');
    expect(text).not.toContain('api_key');
    expect(JSON.parse(text).key_prefix).toBe(`${key.slice(0, 12)}…`);
  });

  it('keeps every line whole under concurrent appends from two writers, and skips a torn last line', async () => {
    const dir = await tempDir();
    const a = JsonLinesAuditLog.inDataDir(dir);
    const b = JsonLinesAuditLog.inDataDir(dir); // another process's handle on the same file
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? a : b).record({ event: 'login', source: 'web', account_id: `acc-${i}`, email: `u${i}@x.test` }),
      ),
    );
    await appendFile(path.join(dir, 'audit.jsonl'), '{"at":"2026-11-22T00:00:00.000Z","event":"lo');
    const events = await a.read();
    expect(events).toHaveLength(50);
    expect(new Set(events.map((e) => e.account_id)).size).toBe(50);
  });

  it('reads an absent file as no events', async () => {
    expect(await JsonLinesAuditLog.inDataDir(await tempDir()).read({ email: 'a@x.test' })).toEqual([]);
  });
});
