import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { FileSessionStore, sessionKey } from '../../../server/sessions/session-store';
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

describe('FileSessionStore', () => {
  it('stores a session under the SHA-256 of its id, with the account id and nothing else', async () => {
    const s = await setup();
    await s.set('sid-1', { accountId: 'acc-1', email: 'leak@x.test', roles: ['admin'] });
    expect(await s.get('sid-1')).toEqual({
      cookie: { originalMaxAge: 1000, path: '/api/v1', httpOnly: true },
      accountId: 'acc-1',
    });
    expect(await s.get('sid-2')).toBeNull();
    const text = await readFile(s.store.file, 'utf8');
    expect(text).not.toContain('sid-1');
    expect(text).not.toContain('leak@x.test');
    expect(Object.keys((await s.file()).sessions)).toEqual([sessionKey('sid-1')]);
    await s.store.close();
  });

  it('does not store a session without an account id', async () => {
    const s = await setup();
    await s.set('anon', {});
    expect(await s.get('anon')).toBeNull();
    expect((await s.file()).sessions).toEqual({});
    await s.store.close();
  });

  it('expires after the idle timeout; touch pushes it back', async () => {
    const s = await setup();
    await s.set('sid', { accountId: 'acc' });
    s.advance(29 * MINUTE);
    expect(await s.get('sid')).not.toBeNull();
    await s.touch('sid');
    s.advance(29 * MINUTE);
    expect(await s.get('sid')).not.toBeNull();
    s.advance(1 * MINUTE);
    expect(await s.get('sid')).toBeNull();
    await s.touch('sid'); // touching an expired session does not revive it
    expect(await s.get('sid')).toBeNull();
    await s.store.close();
  });

  it('expires at the absolute timeout however often it is touched or saved', async () => {
    const s = await setup();
    await s.set('sid', { accountId: 'acc' });
    const signedIn = s.clock().getTime();
    for (let t = 0; t < 12 * 60 - 20; t += 20) {
      s.advance(20 * MINUTE);
      expect(await s.get('sid')).not.toBeNull();
      await s.touch('sid');
      await s.set('sid', { accountId: 'acc' });
    }
    expect((await s.store.expiresAt('sid'))?.getTime()).toBe(signedIn + 12 * 60 * MINUTE);
    s.advance(20 * MINUTE);
    expect(await s.get('sid')).toBeNull();
    await s.store.close();
  });

  it('writes a touch at most once a minute', async () => {
    const s = await setup();
    await s.set('sid', { accountId: 'acc' });
    const first = (await s.file()).sessions[sessionKey('sid')]!.last_seen_at;
    s.advance(30_000);
    await s.touch('sid');
    expect((await s.file()).sessions[sessionKey('sid')]!.last_seen_at).toBe(first);
    s.advance(30_000);
    await s.touch('sid');
    expect((await s.file()).sessions[sessionKey('sid')]!.last_seen_at).toBe(s.clock().toISOString());
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

  it('ends every session of one account', async () => {
    const s = await setup();
    await s.set('a', { accountId: 'acc-1' });
    await s.set('b', { accountId: 'acc-1' });
    await s.set('c', { accountId: 'acc-2' });
    expect(await s.store.destroyAllFor('acc-1')).toBe(2);
    expect(await s.get('a')).toBeNull();
    expect(await s.get('c')).not.toBeNull();
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
