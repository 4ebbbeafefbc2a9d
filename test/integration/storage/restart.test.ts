import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../../server/accounts/passwords';
import { filesContaining } from '../../helpers/data-files';
import { tempDir } from '../../helpers/temp-dir';
import { checkPostcode, seedAccount, startTestServer } from '../../helpers/test-server';

interface KeysOnDisk {
  schema_version: number;
  keys: { id: string; account_id: string; hash: string; status: string; last_used_at: string | null }[];
}

async function keysOnDisk(dataDir: string): Promise<KeysOnDisk> {
  return JSON.parse(await readFile(path.join(dataDir, 'keys.json'), 'utf8')) as KeysOnDisk;
}

describe('restart over the same DATA_DIR', () => {
  it('keeps accounts, subscriptions and keys; close() flushes last_used_at; raw secrets never reach disk or log', async () => {
    const dataDir = await tempDir('dte-restart-');
    const first = await startTestServer({ dataDir });
    const kept = await seedAccount(first.runtime, { rateLimit: 321 });
    const revoked = await seedAccount(first.runtime);
    await first.runtime.keys.revoke(revoked.accountId);

    const res = await checkPostcode(first, kept.apiKey, { postcode: '4000' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('321');
    expect((await checkPostcode(first, revoked.apiKey, { postcode: '4000' })).status).toBe(401);

    // Use is batched: the request did not write keys.json...
    const keyId = first.runtime.keys.currentKey(first.runtime.accounts.subscriptionOf(kept.accountId)!.id)!.id;
    expect((await keysOnDisk(dataDir)).keys.find((k) => k.id === keyId)!.last_used_at).toBeNull();
    const usedAt = first.runtime.keys.currentKey(
      first.runtime.accounts.subscriptionOf(kept.accountId)!.id,
    )!.last_used_at;
    expect(usedAt).toEqual(expect.any(String));
    // ...and close() writes it.
    await first.close();
    expect((await keysOnDisk(dataDir)).keys.find((k) => k.id === keyId)!.last_used_at).toBe(usedAt);

    const second = await startTestServer({ dataDir });
    try {
      const account = second.runtime.accounts.findByEmail(kept.email);
      expect(account?.id).toBe(kept.accountId);
      expect(await verifyPassword(kept.password, account!.password_hash)).toBe(true);
      expect(second.runtime.accounts.subscriptionOf(kept.accountId)).toMatchObject({
        status: 'active',
        rate_limit: 321,
      });
      expect(second.runtime.keys.currentKey(second.runtime.accounts.subscriptionOf(kept.accountId)!.id)).toMatchObject({
        id: keyId,
        status: 'active',
        last_used_at: usedAt,
      });

      const again = await checkPostcode(second, kept.apiKey, { postcode: '4000' });
      expect(again.status).toBe(200);
      expect(again.headers.get('x-ratelimit-limit')).toBe('321');
      // Revocation is permanent, across restarts too.
      expect((await checkPostcode(second, revoked.apiKey, { postcode: '4000' })).status).toBe(401);
      expect(
        second.runtime.keys.currentKey(second.runtime.accounts.subscriptionOf(revoked.accountId)!.id)?.status,
      ).toBe('revoked');
    } finally {
      await second.close();
    }

    const onDisk = await keysOnDisk(dataDir);
    expect(onDisk.schema_version).toBeTypeOf('number');
    expect(onDisk.keys).toHaveLength(2);

    // Secrets: no file in DATA_DIR holds a raw key or a password; no log line holds a key.
    const secrets = [kept.apiKey!, revoked.apiKey!, kept.password];
    expect(await filesContaining(dataDir, secrets)).toEqual([]);
    const logs = [...first.logs, ...second.logs];
    expect(logs.filter((l) => l.includes('/api/v1/check-postcode')).length).toBeGreaterThanOrEqual(4);
    for (const line of logs) {
      expect(line).not.toContain(kept.apiKey!);
      expect(line).not.toContain(revoked.apiKey!);
      expect(line).not.toContain(kept.password);
    }
  });
});
