import { afterEach, describe, expect, it } from 'vitest';
import { RedisSessionStore } from '../../../server/sessions/redis-session-store';
import { sessionKey } from '../../../server/sessions/session-store';
import { useRedisServer } from '../../helpers/redis-per-file';
import { storeCalls } from '../../helpers/session-store-calls';
import { waitFor } from '../../helpers/wait-for';
import {
  ABSOLUTE_MS,
  fakeClock,
  IDLE_MS,
  MINUTE,
  policyOn,
  sessionStoreContract,
} from '../../helpers/session-store-contract';

// A real redis-server on loopback for the file; each test has its own key prefix.
const redis = useRedisServer();
let seq = 0;
let prefix = '';
const stores: RedisSessionStore[] = [];

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function openStore(clock: () => Date, options: { commandTimeoutMs?: number } = {}) {
  const store = await RedisSessionStore.open({
    url: redis.url,
    keyPrefix: prefix,
    policy: policyOn(clock),
    ...options,
  });
  stores.push(store);
  return store;
}

async function keysOf(p: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of redis.inspect.scanIterator({ MATCH: `${p}*`, COUNT: 100 })) keys.push(...batch);
  return keys.sort();
}

describe('RedisSessionStore: the session store contract', () => {
  sessionStoreContract(() => {
    prefix = `t${++seq}:`;
    return {
      open: (clock) => openStore(clock),
      async dump() {
        const parts: string[] = [];
        for (const key of await keysOf(prefix)) {
          const type = await redis.inspect.type(key);
          const value = type === 'set' ? await redis.inspect.sMembers(key) : await redis.inspect.get(key);
          parts.push(`${key} ${JSON.stringify(value)}`);
        }
        return parts.join('\n');
      },
      async lastSeen(sid) {
        const text = await redis.inspect.get(`${prefix}sess:${sessionKey(sid)}`);
        return text ? (JSON.parse(text) as { last_seen_at: string }).last_seen_at : undefined;
      },
      ensureAccount: async () => undefined,
    };
  });
});

describe('RedisSessionStore in Redis', () => {
  it('keeps one key per session under <prefix>sess: and a per-account set, with TTLs within the deadlines', async () => {
    prefix = `t${++seq}:`;
    const time = fakeClock();
    const store = await openStore(time.clock);
    const { set, get, touch } = storeCalls(store);
    await set('raw-id', { accountId: 'acc-9', email: 'someone@x.test' });
    const hashed = sessionKey('raw-id');
    expect(await keysOf(prefix)).toEqual([`${prefix}sess-account:acc-9`, `${prefix}sess:${hashed}`].sort());
    const value = JSON.parse((await redis.inspect.get(`${prefix}sess:${hashed}`))!) as Record<string, unknown>;
    expect(Object.keys(value).sort()).toEqual(['account_id', 'cookie', 'created_at', 'last_seen_at']);
    expect(value.account_id).toBe('acc-9');
    expect(await redis.inspect.sMembers(`${prefix}sess-account:acc-9`)).toEqual([hashed]);
    // The key lives until the idle deadline; the account's set until the absolute one.
    const ttl = await redis.inspect.pTTL(`${prefix}sess:${hashed}`);
    expect(ttl).toBeLessThanOrEqual(IDLE_MS);
    expect(ttl).toBeGreaterThan(IDLE_MS - 5000);
    expect(await redis.inspect.pTTL(`${prefix}sess-account:acc-9`)).toBeGreaterThan(ABSOLUTE_MS - 5000);

    // Busy for 11 h 40 min: each touch renews the TTL, but never past the absolute deadline.
    const signedIn = time.now();
    for (let elapsed = 0; elapsed < ABSOLUTE_MS - 20 * MINUTE;) {
      time.advance(20 * MINUTE);
      elapsed += 20 * MINUTE;
      await touch('raw-id', (await get('raw-id'))!);
    }
    const left = signedIn + ABSOLUTE_MS - time.now();
    expect(left).toBe(20 * MINUTE);
    const capped = await redis.inspect.pTTL(`${prefix}sess:${hashed}`);
    expect(capped).toBeLessThanOrEqual(left);
    expect(capped).toBeGreaterThan(left - 5000);
  });

  it('refuses a session past its deadline even while Redis still holds the key', async () => {
    prefix = `t${++seq}:`;
    const time = fakeClock();
    const store = await openStore(time.clock);
    const { set, get } = storeCalls(store);
    await set('sid', { accountId: 'acc' });
    time.advance(IDLE_MS);
    expect(await redis.inspect.exists(`${prefix}sess:${sessionKey('sid')}`)).toBe(1);
    expect(await get('sid')).toBeNull();
  });

  it('reads anything under the prefix that is not a session record as no session', async () => {
    prefix = `t${++seq}:`;
    const store = await openStore(fakeClock().clock);
    await redis.inspect.set(`${prefix}sess:${sessionKey('junk')}`, 'not json');
    await redis.inspect.set(`${prefix}sess:${sessionKey('other')}`, JSON.stringify({ accountId: 'acc' }));
    expect(await storeCalls(store).get('junk')).toBeNull();
    expect(await storeCalls(store).get('other')).toBeNull();
  });
});

describe('RedisSessionStore when Redis is out', () => {
  afterEach(() => redis.resume());

  it('fails every operation at once with session_unavailable (503), swallows touches, and recovers by itself', async () => {
    prefix = `t${++seq}:`;
    const time = fakeClock();
    const store = await openStore(time.clock);
    const errors: unknown[] = [];
    store.on('error', (err: unknown) => errors.push(err));
    const calls = storeCalls(store);
    await calls.set('before', { accountId: 'acc' });

    await redis.stop();
    const started = Date.now();
    const failure = await calls.get('before').catch((err: unknown) => err);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(failure).toMatchObject({ code: 'session_unavailable' });
    expect(failure).toMatchObject({ status: 503, code: 'session_unavailable', headers: { 'Retry-After': '2' } });
    await expect(calls.set('during', { accountId: 'acc' })).rejects.toMatchObject({ code: 'session_unavailable' });
    await expect(calls.destroy('before')).rejects.toMatchObject({ code: 'session_unavailable' });
    await expect(store.expiresAt('before')).rejects.toMatchObject({ code: 'session_unavailable' });
    await expect(store.destroyAllFor('acc')).rejects.toMatchObject({ code: 'session_unavailable' });
    // A touch only moves a deadline: the response goes out, the failure is reported.
    time.advance(2 * MINUTE);
    await calls.touch('before');
    expect(errors.length).toBe(1);
    expect(errors[0]).toMatchObject({ code: 'session_unavailable' });

    await redis.start();
    // The same store, not reopened: it reconnects in the background.
    await waitFor(() => calls.set('after', { accountId: 'acc' }).then(() => true), {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'the store to write again after Redis restarted',
    });
    expect(await calls.get('after')).toMatchObject({ accountId: 'acc' });
  });

  it('answers within the command timeout when Redis hangs, and again once it answers', async () => {
    prefix = `t${++seq}:`;
    const store = await openStore(fakeClock().clock, { commandTimeoutMs: 300 });
    const calls = storeCalls(store);
    await calls.set('sid', { accountId: 'acc' });
    redis.pause();
    const started = Date.now();
    await expect(calls.get('sid')).rejects.toMatchObject({ code: 'session_unavailable' });
    expect(Date.now() - started).toBeLessThan(1000);
    redis.resume();
    await waitFor(() => calls.get('sid').then((s) => s?.accountId === 'acc'), {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'the session to be read again once Redis answers',
    });
  });

  it('refuses to open when Redis cannot be reached, naming the host but not the password', async () => {
    const closed = new URL(redis.url);
    closed.port = '1';
    closed.username = 'default';
    closed.password = 'sekrit-password';
    const failure = await RedisSessionStore.open({
      url: closed.toString(),
      keyPrefix: 'x:',
      policy: policyOn(() => new Date()),
    }).catch((err: unknown) => err as Error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe('could not connect to Redis at redis://127.0.0.1:1 for sessions');
    expect((failure as Error).message).not.toContain('sekrit');
  });
});
