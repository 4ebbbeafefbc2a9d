import { afterAll, describe, expect, it } from 'vitest';
import { counters } from '../../../server/backends/counters';
import { RedisSlidingWindow } from '../../../server/rate-limit/redis-sliding-window';
import { rateLimitUnavailable } from '../../../server/rate-limit/sliding-window';
import { DataEpoch, EpochBumps, StaleDataError } from '../../../server/storage/postgres/data-epoch';
import { useRedisServer } from '../../helpers/redis-per-file';
import { WINDOW } from '../../helpers/sliding-window-contract';
import { waitFor } from '../../helpers/wait-for';

const redis = useRedisServer();
const opened: { close(): Promise<void> }[] = [];
let prefixes = 0;

async function openWindow(commandTimeoutMs?: number) {
  const keyPrefix = `epoch:${process.pid}:${++prefixes}:`;
  const counter = await RedisSlidingWindow.open({
    url: redis.url,
    windowMs: WINDOW,
    keyPrefix: `${keyPrefix}rl:`,
    epochKey: `${keyPrefix}data-epoch`,
    commandTimeoutMs,
  });
  opened.push(counter);
  return { counter, bucket: `${keyPrefix}rl:key:a`, epochKey: `${keyPrefix}data-epoch` };
}

const silent = { info: () => undefined, warn: () => undefined };

afterAll(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

describe('the data epoch in the rate-limit script', () => {
  it('counts only when the request was identified on the current epoch; otherwise counts nothing and names it', async () => {
    const { counter, bucket } = await openWindow();
    expect(counter.checksDataEpoch).toBe(true);
    // Never bumped: the epoch reads '0', which no process knows before it has caught up once.
    const never = await counter.consume('key:a', 5, Date.now(), '').catch((err: unknown) => err);
    expect(never).toBeInstanceOf(StaleDataError);
    expect((never as StaleDataError).epoch).toBe('0');
    expect(await redis.inspect.zCard(bucket)).toBe(0);

    expect(await counter.consume('key:a', 5, Date.now(), '0')).toMatchObject({ allowed: true, count: 1 });
    const epoch = await counter.bumpEpoch();
    const stale = await counter.consume('key:a', 5, Date.now(), '0').catch((err: unknown) => err);
    expect(stale).toEqual(new StaleDataError(epoch));
    expect(await redis.inspect.zCard(bucket)).toBe(1);
    // Identified again on the new epoch, or counted without comparing (after a catch-up): counted once each.
    expect(await counter.consume('key:a', 5, Date.now(), epoch)).toMatchObject({ allowed: true, count: 2 });
    expect(await counter.consume('key:a', 5, Date.now())).toMatchObject({ allowed: true, count: 3 });
  });

  it('compares before refusing too: a full window answers StaleDataError, not 429, when the epoch moved', async () => {
    const { counter } = await openWindow();
    const epoch = await counter.bumpEpoch();
    expect(await counter.consume('key:a', 1, Date.now(), epoch)).toMatchObject({ allowed: true });
    expect(await counter.consume('key:a', 1, Date.now(), epoch)).toMatchObject({ allowed: false });
    await expect(counter.consume('key:a', 1, Date.now(), 'older')).rejects.toBeInstanceOf(StaleDataError);
  });

  it('moves the epoch to values never seen before, even after Redis lost it', async () => {
    const { counter, epochKey } = await openWindow();
    const seen = [await counter.bumpEpoch(), await counter.bumpEpoch(), await counter.bumpEpoch()].map(BigInt);
    expect(seen[1]! > seen[0]! && seen[2]! > seen[1]!).toBe(true);
    await redis.inspect.del(epochKey);
    const afterLoss = BigInt(await counter.bumpEpoch());
    expect(afterLoss > seen[2]!).toBe(true);
    // An older snapshot restored: the next bump is still past everything the instances knew.
    await redis.inspect.set(epochKey, String(seen[0]));
    expect(BigInt(await counter.bumpEpoch()) > afterLoss).toBe(true);
  });

  it('a counter opened without an epoch key neither compares nor bumps', async () => {
    const counter = await RedisSlidingWindow.open({
      url: redis.url,
      windowMs: WINDOW,
      keyPrefix: `plain:${++prefixes}:`,
    });
    opened.push(counter);
    expect(counter.checksDataEpoch).toBe(false);
    expect(await counter.consume('key:a', 5, Date.now(), 'whatever')).toMatchObject({ allowed: true, count: 1 });
    await expect(counter.bumpEpoch()).rejects.toThrow(/without a data epoch key/);
  });
});

describe('EpochBumps: a commit is announced before its caller is answered, and never lost', () => {
  it('waits for the bump; with Redis gone, answers after about a second and bumps once Redis is back', async () => {
    const keyPrefix = `bumps:${process.pid}:`;
    const counted = counters({ url: redis.url, keyPrefix, clock: 'redis', commandTimeoutMs: 200 });
    opened.push(counted);
    await counted.announceCommit!();
    const first = await redis.inspect.get(`${keyPrefix}data-epoch`);
    expect(first).not.toBeNull();

    await redis.stop();
    try {
      const started = Date.now();
      await counted.announceCommit!(); // resolves: the commit stands
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await redis.start();
    }
    await waitFor(async () => (await redis.inspect.get(`${keyPrefix}data-epoch`)) !== null, {
      timeoutMs: 5_000,
      what: 'the bump retried once Redis is back',
    });
  });

  it('a later successful bump announces every earlier commit; close() tries what is still pending once more', async () => {
    let fail = true;
    let bumps = 0;
    // A bump that fails while `fail` is set; the background retry is left out of it (once a minute).
    const bumpsFailingWhile = (waitMs: number) =>
      new EpochBumps({
        bump: async () => {
          bumps++;
          if (fail) throw rateLimitUnavailable(new Error('down'));
        },
        logger: silent,
        waitMs,
        retryEveryMs: 60_000,
      });
    const epochBumps = bumpsFailingWhile(50);
    await epochBumps.afterCommit();
    const failed = bumps;
    fail = false;
    await epochBumps.afterCommit();
    expect(bumps).toBe(failed + 1);
    // Nothing pending: close() makes no bump.
    await epochBumps.close();
    expect(bumps).toBe(failed + 1);

    const pending = bumpsFailingWhile(20);
    fail = true;
    await pending.afterCommit();
    fail = false;
    const before = bumps;
    await pending.close();
    expect(bumps).toBe(before + 1);
  });
});

describe('DataEpoch: what this process knows', () => {
  it('knows an epoch once a sync started after it was read has ended; the epoch read last wins', async () => {
    const releases: (() => void)[] = [];
    const epoch = new DataEpoch(() => new Promise<void>((resolve) => releases.push(resolve)), {
      warn: () => undefined,
    });
    expect(epoch.known).toBe('');
    const first = epoch.catchUp('10');
    const second = epoch.catchUp('11');
    // The second sync ends first; the first one's end must not take `known` back.
    releases[1]!();
    expect(await second).toBe(true);
    expect(epoch.known).toBe('11');
    releases[0]!();
    expect(await first).toBe(true);
    expect(epoch.known).toBe('11');
  });

  it('gives up waiting after 500 ms (answered from memory) and still learns the epoch when the sync ends', async () => {
    let release!: () => void;
    const warnings: unknown[] = [];
    const epoch = new DataEpoch(() => new Promise<void>((resolve) => (release = resolve)), {
      warn: (...args: unknown[]) => void warnings.push(args),
    });
    const started = Date.now();
    expect(await epoch.catchUp('12')).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(epoch.known).toBe('');
    expect(warnings).toHaveLength(1);
    release();
    await waitFor(() => epoch.known === '12', { what: 'the epoch once the late sync ended' });
  });

  it('a failed sync leaves `known` behind, so the next request tries again', async () => {
    const epoch = new DataEpoch(() => Promise.reject(new Error('database down')), { warn: () => undefined });
    expect(await epoch.catchUp('13')).toBe(false);
    expect(epoch.known).toBe('');
  });
});
