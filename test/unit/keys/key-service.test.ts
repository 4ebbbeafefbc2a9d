import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../server/keys/api-key';
import { keyPrefix } from '../../../shared/domain/api-key-format';
import { ContractError } from '../../../server/contract-error';
import type { DataRuntime } from '../../../server/runtime';
import { openDataDir } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';

const open: DataRuntime[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.close()));
});

async function services(dataDir?: string): Promise<DataRuntime> {
  const data = await openDataDir(dataDir ?? (await tempDir('dte-keys-')));
  open.push(data);
  return data;
}

async function activeAccount(data: DataRuntime, email = 'clinic@example.test'): Promise<string> {
  const account = await data.accounts.createAccount(email, 'a long enough password');
  await data.accounts.setSubscription(email, { status: 'active' });
  return account.id;
}

describe('KeyService', () => {
  it('stores only the SHA-256 and the prefix of a new key, and authenticates by it', async () => {
    const data = await services();
    const accountId = await activeAccount(data);
    const { api_key } = await data.keys.generate(accountId);
    const file = await readFile(path.join(data.dataDir, 'keys.json'), 'utf8');
    expect(file).not.toContain(api_key);
    expect(file).toContain(hashApiKey(api_key));
    expect(file).toContain(keyPrefix(api_key));
    const auth = data.keys.authenticate(api_key, new Date());
    expect(auth.ok).toBe(true);
    expect(data.keys.authenticate(api_key.slice(0, -1) + (api_key.endsWith('a') ? 'b' : 'a'), new Date())).toEqual({
      ok: false,
      reason: 'invalid_api_key',
    });
  });

  it('never yields two active keys from two concurrent generate calls', async () => {
    const data = await services();
    const accountId = await activeAccount(data);
    const results = await Promise.allSettled([data.keys.generate(accountId), data.keys.generate(accountId)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected');
    expect((rejected!.reason as ContractError).code).toBe('key_exists');
    expect(data.keys.currentKey(data.accounts.subscriptionOf(accountId)!.id)?.status).toBe('active');
  });

  it('records use in memory without a disk write per request, and writes it on flush', async () => {
    const data = await services();
    const accountId = await activeAccount(data);
    const { api_key } = await data.keys.generate(accountId);
    const auth = data.keys.authenticate(api_key, new Date());
    if (!auth.ok) throw new Error('not authenticated');
    const file = path.join(data.dataDir, 'keys.json');
    const before = await stat(file);

    const used = new Date('2030-01-02T03:04:05.000Z');
    for (let i = 99; i >= 0; i--) data.keys.recordUse(auth.key.id, new Date(used.getTime() - i * 1000));
    const after = await stat(file);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    // Shown at once (the status endpoint and list-accounts read it through currentKey)...
    expect(data.keys.currentKey(data.accounts.subscriptionOf(accountId)!.id)?.last_used_at).toBe(used.toISOString());

    // ...and written by one flush, keeping the latest time.
    await data.keys.flushUsage();
    const onDisk = JSON.parse(await readFile(file, 'utf8')) as { keys: { last_used_at: string | null }[] };
    expect(onDisk.keys[0]!.last_used_at).toBe(used.toISOString());

    // Nothing pending: no write.
    const flushed = await stat(file);
    await data.keys.flushUsage();
    expect((await stat(file)).mtimeMs).toBe(flushed.mtimeMs);
  });

  it('never moves last_used_at backwards when an older use is flushed later', async () => {
    const data = await services();
    const accountId = await activeAccount(data);
    await data.keys.generate(accountId);
    const keyId = data.keys.currentKey(data.accounts.subscriptionOf(accountId)!.id)!.id;
    data.keys.recordUse(keyId, new Date('2030-05-05T00:00:00.000Z'));
    await data.keys.flushUsage();
    data.keys.recordUse(keyId, new Date('2030-01-01T00:00:00.000Z'));
    await data.keys.flushUsage();
    expect(data.keys.currentKey(data.accounts.subscriptionOf(accountId)!.id)!.last_used_at).toBe(
      '2030-05-05T00:00:00.000Z',
    );
  });

  it('close() flushes pending use', async () => {
    const dir = await tempDir('dte-keys-');
    const data = await openDataDir(dir);
    const accountId = await activeAccount(data);
    await data.keys.generate(accountId);
    const keyId = data.keys.currentKey(data.accounts.subscriptionOf(accountId)!.id)!.id;
    data.keys.recordUse(keyId, new Date('2030-01-01T00:00:00.000Z'));
    await data.close();
    const reopened = await services(dir);
    expect(reopened.keys.currentKey(reopened.accounts.subscriptionOf(accountId)!.id)!.last_used_at).toBe(
      '2030-01-01T00:00:00.000Z',
    );
  });

  it('refuses to issue a key on an inactive or expired subscription', async () => {
    const data = await services();
    const account = await data.accounts.createAccount('inactive@example.test', 'a long enough password');
    await expect(data.keys.generate(account.id)).rejects.toMatchObject({ code: 'subscription_inactive' });
    await data.accounts.setSubscription('inactive@example.test', { status: 'active', expires: '2020-01-01' });
    await expect(data.keys.generate(account.id)).rejects.toMatchObject({ code: 'subscription_inactive' });
    expect(data.keys.currentKey(data.accounts.subscriptionOf(account.id)!.id)).toBeUndefined();
  });

  it('stops authenticating a revoked key and the old key after regenerate', async () => {
    const data = await services();
    const accountId = await activeAccount(data);
    const first = await data.keys.generate(accountId);
    const second = await data.keys.regenerate(accountId);
    expect(data.keys.authenticate(first.api_key, new Date()).ok).toBe(false);
    expect(data.keys.authenticate(second.api_key, new Date()).ok).toBe(true);
    await data.keys.revoke(accountId);
    expect(data.keys.authenticate(second.api_key, new Date())).toEqual({ ok: false, reason: 'invalid_api_key' });
    await expect(data.keys.revoke(accountId)).rejects.toMatchObject({ code: 'no_active_key' });
  });
});

describe('KeyService key action limit', () => {
  it('counts limited actions only, refuses the eleventh with rate_limited and Retry-After seconds, and writes nothing then', async () => {
    const data = await services();
    const accountId = await activeAccount(data);
    const t0 = Date.parse('2026-03-01T00:00:00.000Z');
    // Unlimited calls (the admin CLI) are not counted.
    for (let i = 0; i < 12; i++) {
      await data.keys.generate(accountId, new Date(t0));
      await data.keys.revoke(accountId, new Date(t0));
    }
    await data.keys.generate(accountId, new Date(t0), { limited: true });
    for (let i = 1; i < 10; i++) await data.keys.regenerate(accountId, new Date(t0 + i * 1000), { limited: true });
    const file = path.join(data.dataDir, 'keys.json');
    const before = await readFile(file, 'utf8');
    for (const call of [
      () => data.keys.regenerate(accountId, new Date(t0 + 10_000), { limited: true }),
      () => data.keys.revoke(accountId, new Date(t0 + 10_000), { limited: true }),
      () => data.keys.generate(accountId, new Date(t0 + 10_000), { limited: true }),
    ]) {
      const err = (await call().catch((e: unknown) => e)) as ContractError;
      expect(err).toBeInstanceOf(ContractError);
      expect(err.code).toBe('rate_limited');
      expect(err.headers['Retry-After']).toBe(String(3600 - 10));
    }
    expect(await readFile(file, 'utf8')).toBe(before);
    // A refused key action (no active key to revoke) is not counted either.
    const other = await activeAccount(data, 'other@example.test');
    for (let i = 0; i < 15; i++) {
      await expect(data.keys.revoke(other, new Date(t0), { limited: true })).rejects.toMatchObject({
        code: 'no_active_key',
      });
    }
    await data.keys.generate(other, new Date(t0), { limited: true });
  });
});
