import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSessionStore } from '../../../server/sessions/file-session-store';
import { sessionKey } from '../../../server/sessions/session-store';
import { policyOn, sessionStoreContract } from '../../helpers/session-store-contract';
import { storeCalls } from '../../helpers/session-store-calls';
import { tempDir } from '../../helpers/temp-dir';

const MINUTE = 60_000;

async function setup(dir?: string) {
  const dataDir = dir ?? (await tempDir());
  let now = Date.parse('2026-11-22T00:00:00.000Z');
  const clock = () => new Date(now);
  const store = await FileSessionStore.open(dataDir, {
    idleTimeoutMs: 30 * MINUTE,
    absoluteTimeoutMs: 12 * 60 * MINUTE,
    clock,
  });
  const file = async () =>
    JSON.parse(await readFile(store.file, 'utf8')) as { sessions: Record<string, { last_seen_at: string }> };
  return { dataDir, store, ...storeCalls(store), file, advance: (ms: number) => (now += ms), clock };
}

// What every store does is the contract's (below); these are the file's own: its content, and a reopen.
describe('FileSessionStore in DATA_DIR/sessions.json', () => {
  it('stores a session under the SHA-256 of its id, with the account id and nothing else', async () => {
    const s = await setup();
    await s.set('sid-1', { accountId: 'acc-1', email: 'leak@x.test', roles: ['admin'] });
    expect(await s.get('sid-1')).toEqual({
      cookie: { originalMaxAge: 1000, path: '/api/v1', httpOnly: true },
      accountId: 'acc-1',
      lastSeenAt: s.clock().getTime(),
    });
    expect(await s.get('sid-2')).toBeNull();
    const text = await readFile(s.store.file, 'utf8');
    expect(text).not.toContain('sid-1');
    expect(text).not.toContain('leak@x.test');
    expect(Object.keys((await s.file()).sessions)).toEqual([sessionKey('sid-1')]);
    await s.store.close();
  });

  it('destroy removes a session; purge removes only expired ones', async () => {
    const s = await setup();
    await s.set('a', { accountId: 'acc' });
    await s.set('b', { accountId: 'acc' });
    await s.destroy('a');
    expect(await s.get('a')).toBeNull();
    s.advance(20 * MINUTE);
    await s.set('c', { accountId: 'acc' });
    s.advance(15 * MINUTE); // b: 35 idle minutes, c: 15
    expect(await s.store.purge()).toBe(1);
    expect(Object.keys((await s.file()).sessions)).toEqual([sessionKey('c')]);
    expect(await s.store.purge()).toBe(0);
    await s.store.close();
  });

  it('keeps sessions across a reopen of the same directory', async () => {
    const s = await setup();
    await s.set('sid', { accountId: 'acc' });
    await s.store.close();
    const reopened = await setup(s.dataDir);
    expect(await reopened.get('sid')).toMatchObject({ accountId: 'acc' });
    await reopened.store.close();
  });
});

describe('FileSessionStore: the session store contract', () => {
  sessionStoreContract(
    () => {
      // One DATA_DIR per test; a second store opened on it is another process's.
      const dataDir = mkdtempSync(path.join(tmpdir(), 'dte-sessions-'));
      const read = async () =>
        JSON.parse(await readFile(path.join(dataDir, 'sessions.json'), 'utf8')) as {
          sessions: Record<string, { last_seen_at: string }>;
        };
      return {
        open: (clock) => FileSessionStore.open(dataDir, policyOn(clock)),
        dump: async () => JSON.stringify(await read(), null, 1),
        lastSeen: async (sid) => (await read()).sessions[sessionKey(sid)]?.last_seen_at,
        ensureAccount: async () => undefined,
      };
    },
    { shared: false },
  );
});
