import { expect, it } from 'vitest';
import { sessionKey, type SessionPolicy, type SessionStore } from '../../server/sessions/session-store';
import { storeCalls } from './session-store-calls';

export const MINUTE = 60_000;
export const IDLE_MS = 30 * MINUTE;
export const ABSOLUTE_MS = 12 * 60 * MINUTE;

/** A clock the test moves by hand, shared by the stores of one test (two instances agree on the time). */
export function fakeClock(start = Date.now()) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms), now: () => now };
}

export function policyOn(clock: () => Date): SessionPolicy {
  return { idleTimeoutMs: IDLE_MS, absoluteTimeoutMs: ABSOLUTE_MS, clock };
}

export interface ContractBackend {
  /** A store on `clock`; a second call with the same clock is another instance (its own connection). */
  open(clock: () => Date): Promise<SessionStore>;
  /** Everything the backend holds for this test's sessions, as text (keys and values, or rows). */
  dump(): Promise<string>;
  /** The stored last_seen_at of a session (ISO), read straight from the backend. */
  lastSeen(sid: string): Promise<string | undefined>;
  /** Makes `accountId` exist where the backend needs it to (the table's foreign key). */
  ensureAccount(accountId: string): Promise<void>;
}

/**
 * What every SessionStore does: the same policy on the same fake clock, on every backend (the file, PostgreSQL,
 * Redis); and for the shared ones (`shared`, the default) what sharing adds: one instance's writes read at once by
 * another. The file store is one process's: another process's writes reach it through its watcher, within a second.
 */
export function sessionStoreContract(backend: () => ContractBackend, { shared = true } = {}): void {
  async function setup() {
    const b = backend();
    await Promise.all(['acc', 'acc-1', 'acc-2'].map((id) => b.ensureAccount(id)));
    const time = fakeClock();
    const store = await b.open(time.clock);
    return { b, time, store, ...storeCalls(store) };
  }

  it('stores a session under the SHA-256 of its id, with the account id and times only (no raw id, no email)', async () => {
    const s = await setup();
    await s.set('sid-1-raw-session-id', { accountId: 'acc-1', email: 'leak@x.test', roles: ['admin'] });
    const loaded = await s.get('sid-1-raw-session-id');
    expect(loaded).toMatchObject({
      cookie: { originalMaxAge: 1000, path: '/api/v1', httpOnly: true },
      accountId: 'acc-1',
    });
    expect(Object.keys(loaded!).sort()).toEqual(['accountId', 'cookie', 'lastSeenAt']);
    expect(await s.get('sid-2')).toBeNull();
    const dump = await s.b.dump();
    expect(dump).toContain(sessionKey('sid-1-raw-session-id'));
    expect(dump).not.toContain('sid-1-raw-session-id');
    expect(dump).not.toContain('leak@x.test');
    expect(dump).not.toContain('admin');
    await s.store.close();
  });

  it('does not store a session without an account id', async () => {
    const s = await setup();
    await s.set('anon', {});
    expect(await s.get('anon')).toBeNull();
    expect(await s.b.dump()).not.toContain(sessionKey('anon'));
    await s.store.close();
  });

  it('expires after the idle timeout on the server clock; touch pushes it back; an expired one stays expired', async () => {
    const s = await setup();
    await s.set('sid', { accountId: 'acc' });
    s.time.advance(29 * MINUTE);
    expect(await s.get('sid')).not.toBeNull();
    await s.touch('sid');
    s.time.advance(29 * MINUTE);
    expect(await s.get('sid')).not.toBeNull();
    s.time.advance(1 * MINUTE);
    expect(await s.get('sid')).toBeNull();
    expect(await s.store.expiresAt('sid')).toBeUndefined();
    await s.touch('sid'); // touching an expired session does not revive it
    expect(await s.get('sid')).toBeNull();
    await s.store.close();
  });

  it('expires at the absolute timeout however often it is touched or saved, and reports that deadline', async () => {
    const s = await setup();
    await s.set('sid', { accountId: 'acc' });
    const signedIn = s.time.now();
    expect((await s.store.expiresAt('sid'))?.getTime()).toBe(signedIn + IDLE_MS);
    for (let t = 0; t < 12 * 60 - 20; t += 20) {
      s.time.advance(20 * MINUTE);
      const loaded = await s.get('sid');
      expect(loaded, `after ${t + 20} minutes`).not.toBeNull();
      await s.touch('sid', loaded!);
      await s.set('sid', { accountId: 'acc' });
    }
    expect((await s.store.expiresAt('sid'))?.getTime()).toBe(signedIn + ABSOLUTE_MS);
    s.time.advance(20 * MINUTE);
    expect(await s.get('sid')).toBeNull();
    await s.store.close();
  });

  it('writes a touch at most once a minute, whether or not the loaded session says when it was written', async () => {
    const s = await setup();
    await s.set('sid', { accountId: 'acc' });
    const first = await s.b.lastSeen('sid');
    expect(first).toBe(s.time.clock().toISOString());
    s.time.advance(30_000);
    await s.touch('sid', (await s.get('sid'))!);
    await s.touch('sid');
    expect(await s.b.lastSeen('sid')).toBe(first);
    s.time.advance(30_000);
    const loaded = (await s.get('sid'))!;
    expect(loaded.lastSeenAt).toBe(Date.parse(first!));
    await s.touch('sid', loaded);
    expect(await s.b.lastSeen('sid')).toBe(s.time.clock().toISOString());
    // Within the minute again, with nothing known: read, found recent, not written.
    s.time.advance(10_000);
    await s.touch('sid');
    expect(await s.b.lastSeen('sid')).toBe(new Date(s.time.now() - 10_000).toISOString());
    await s.store.close();
  });

  it('destroy removes a session; purge leaves live ones alone', async () => {
    const s = await setup();
    await s.set('a', { accountId: 'acc' });
    await s.set('b', { accountId: 'acc' });
    await s.destroy('a');
    expect(await s.get('a')).toBeNull();
    expect(await s.b.dump()).not.toContain(sessionKey('a'));
    await s.store.purge();
    expect(await s.get('b')).not.toBeNull();
    await s.destroy('never-existed');
    await s.store.close();
  });

  it('ends every session of one account, and only those', async () => {
    const s = await setup();
    await s.set('a', { accountId: 'acc-1' });
    await s.set('b', { accountId: 'acc-1' });
    await s.set('c', { accountId: 'acc-2' });
    expect(await s.store.destroyAllFor('acc-1')).toBe(2);
    expect(await s.get('a')).toBeNull();
    expect(await s.get('b')).toBeNull();
    expect(await s.get('c')).not.toBeNull();
    expect(await s.store.destroyAllFor('acc-1')).toBe(0);
    expect(await s.store.destroyAllFor('nobody')).toBe(0);
    // A session signed in afterwards is ended by the next call.
    await s.set('d', { accountId: 'acc-1' });
    expect(await s.store.destroyAllFor('acc-1')).toBe(1);
    await s.store.close();
  });

  it.runIf(shared)(
    'is shared: a session written by one instance is read, touched and ended through another',
    async () => {
      const s = await setup();
      const other = await s.b.open(s.time.clock);
      const b = storeCalls(other);
      await s.set('shared', { accountId: 'acc' });
      expect(await b.get('shared')).toMatchObject({ accountId: 'acc' });

      // Kept alive through B alone: A sees the moved idle deadline.
      s.time.advance(25 * MINUTE);
      await b.touch('shared', (await b.get('shared'))!);
      s.time.advance(25 * MINUTE);
      expect(await s.get('shared')).toMatchObject({ accountId: 'acc' });
      // 50 minutes after sign-in: alive only because B's touch moved the idle deadline.
      expect((await s.store.expiresAt('shared'))?.getTime()).toBe(s.time.now() + IDLE_MS);

      await b.destroy('shared');
      expect(await s.get('shared')).toBeNull();
      await s.set('again', { accountId: 'acc-2' });
      expect(await other.destroyAllFor('acc-2')).toBe(1);
      expect(await s.get('again')).toBeNull();
      await other.close();
      await s.store.close();
    },
  );
}
