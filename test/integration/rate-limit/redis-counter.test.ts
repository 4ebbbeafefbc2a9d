import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { loadConfig } from '../../../server/config';
import { createLogger } from '../../../server/logger';
import { buildPostcodeIndex } from '../../../server/postcodes/postcode-index';
import { RedisBatchAllowance } from '../../../server/check/redis-batch-allowance';
import { RedisSlidingWindow } from '../../../server/rate-limit/redis-sliding-window';
import { openRuntime } from '../../../server/runtime';
import { LOCALITY_ROWS } from '../../fixtures/localities';
import { useRedisServer } from '../../helpers/redis-per-file';
import { slidingWindowContract, WINDOW } from '../../helpers/sliding-window-contract';
import {
  checkBatchOf,
  checkPostcode,
  rowsLeftToday,
  seedAccount,
  startTestServer,
  type TestServer,
} from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../../helpers/wait-for';

const redis = useRedisServer();
const counters: RedisSlidingWindow[] = [];
let prefixes = 0;

/** A counter over the test Redis, on its own key prefix so that every test starts empty. */
async function openCounter(options: { clock?: 'redis' | 'caller' } = {}): Promise<RedisSlidingWindow> {
  const counter = await RedisSlidingWindow.open({
    url: redis.url,
    windowMs: WINDOW,
    keyPrefix: `test:${process.pid}:${++prefixes}:`,
    clock: options.clock,
  });
  counters.push(counter);
  return counter;
}

afterAll(async () => {
  await Promise.all(counters.splice(0).map((c) => c.close()));
});

describe('RedisSlidingWindow: the SlidingWindowCounter contract (on the caller clock)', () => {
  slidingWindowContract(() => openCounter({ clock: 'caller' }));
});

describe('RedisSlidingWindow on the Redis clock', () => {
  it('translates resetAt to the caller clock, whatever that clock says', async () => {
    const counter = await openCounter();
    const callerNow = Date.UTC(2030, 0, 1);
    expect(await counter.consume('k', 1, callerNow)).toMatchObject({ allowed: true, count: 1 });
    const refused = await counter.consume('k', 1, callerNow);
    expect(refused.allowed).toBe(false);
    // The entry was recorded an instant ago on Redis's clock: it leaves one window later, give or take the round trip.
    expect(refused.resetAt - callerNow).toBeGreaterThan(WINDOW - 1000);
    expect(refused.resetAt - callerNow).toBeLessThanOrEqual(WINDOW);
  });

  it('fails fast with rate_limit_unavailable when nothing listens', async () => {
    const started = Date.now();
    await expect(RedisSlidingWindow.open({ url: 'redis://127.0.0.1:1', windowMs: WINDOW })).rejects.toMatchObject({
      code: 'rate_limit_unavailable',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

function limitHeaders(res: Response) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
    retryAfter: res.headers.get('retry-after'),
  };
}

describe('two app instances sharing one Redis', () => {
  let servers: TestServer[] = [];

  beforeAll(async () => {
    // Each instance has its own connection, as two processes would; both count under one prefix.
    const keyPrefix = `test:${process.pid}:shared:`;
    const open = async () => {
      const counter = await RedisSlidingWindow.open({ url: redis.url, windowMs: WINDOW, keyPrefix });
      counters.push(counter);
      return counter;
    };
    const first = await startTestServer({ rateLimitCounter: await open() });
    const second = await startTestServer({ dataDir: first.dataDir, rateLimitCounter: await open() });
    servers = [first, second];
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('accepts exactly 100 of 150 concurrent checks on one key split across both, with correct headers', async () => {
    const [first, second] = servers as [TestServer, TestServer];
    const { apiKey } = await seedAccount(first.runtime);
    // The second instance picks the new key up from the shared data directory (asked directly: no slot is taken).
    await waitFor(() => second.runtime.keys.authenticate(apiKey!, new Date()).ok, {
      what: 'the key on the second instance',
    });
    const responses = await Promise.all(
      Array.from({ length: 150 }, (_, i) => checkPostcode(i % 2 ? second : first, apiKey, { postcode: '4000' })),
    );
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    const statuses: Record<number, number> = {};
    for (const r of responses) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    expect(statuses).toEqual({ 200: 100, 429: 50 });
    // Each accepted check saw its own Remaining, whichever instance answered it: 99 down to 0, once each.
    const remaining = responses.filter((r) => r.status === 200).map((r) => Number(limitHeaders(r).remaining));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    for (const res of responses) {
      const h = limitHeaders(res);
      expect(h.limit).toBe('100');
      expect(Number(h.reset)).toBeGreaterThanOrEqual(59);
      expect(Number(h.reset)).toBeLessThanOrEqual(60);
      if (res.status === 429) expect(h).toMatchObject({ remaining: '0', retryAfter: h.reset });
      else expect(h.retryAfter).toBeNull();
    }
  });
});

describe('a Redis outage', () => {
  let server: TestServer;

  beforeAll(async () => {
    const counter = await openCounter();
    server = await startTestServer({ rateLimitCounter: counter });
  });

  afterAll(async () => {
    await server.close();
    await redis.start();
  });

  it('answers 503 rate_limit_unavailable with Retry-After promptly, keeps serving /healthz, and recovers', async () => {
    const { apiKey } = await seedAccount(server.runtime);
    const ok = await checkPostcode(server, apiKey, { postcode: '4000' });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();

    const perDay = server.runtime.batchAllowance.perDay;
    expect(await rowsLeftToday(await checkBatchOf(server, apiKey!, ['4000', '2000', '3000']))).toBe(perDay - 3);

    await redis.stop();
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const res = await checkPostcode(server, apiKey, { postcode: '4000' });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(ErrorEnvelope.parse(await res.json()).error).toEqual({
        code: 'rate_limit_unavailable',
        message: 'Rate limiting is unavailable; try again shortly',
      });
    }
    // A batch is one check against the rate limit: refused the same, before any row of the allowance is taken.
    const batchRefused = await checkBatchOf(server, apiKey!, ['4000', '2000']);
    expect(batchRefused.status).toBe(503);
    expect(batchRefused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(ErrorEnvelope.parse(await batchRefused.json()).error.code).toBe('rate_limit_unavailable');
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBeLessThan(500);
    await health.arrayBuffer();

    await redis.start();
    const { value } = await waitFor(
      async () => {
        const res = await checkPostcode(server, apiKey, { postcode: '4000' });
        await res.arrayBuffer();
        return res.status === 200 && res;
      },
      { timeoutMs: 5000, intervalMs: 100, what: 'checks to succeed again after Redis restarted' },
    );
    // Redis kept nothing (no persistence): the window starts again.
    expect(value.headers.get('x-ratelimit-remaining')).toBe('99');
    // The allowance here is the instance's own (the JSON backend): only the answered batches took rows.
    expect(await rowsLeftToday(await checkBatchOf(server, apiKey!, ['4000']))).toBe(perDay - 4);
    expect(server.logs.some((line) => line.includes('unhandled error'))).toBe(false);
  });
});

describe('a Redis that stops answering', () => {
  it('answers 503 within the command timeout, and 200 again once Redis answers', async () => {
    const server = await startTestServer({ rateLimitCounter: await openCounter() });
    try {
      const { apiKey } = await seedAccount(server.runtime);
      redis.pause();
      const started = Date.now();
      const res = await checkPostcode(server, apiKey, { postcode: '4000' });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(503);
      expect(ErrorEnvelope.parse(await res.json()).error.code).toBe('rate_limit_unavailable');
      redis.resume();
      await waitFor(
        async () => {
          const again = await checkPostcode(server, apiKey, { postcode: '4000' });
          await again.arrayBuffer();
          return again.status === 200;
        },
        { timeoutMs: 5000, intervalMs: 100, what: 'checks to succeed once Redis answers again' },
      );
    } finally {
      redis.resume();
      await server.close();
    }
  });
});

describe('a Redis that lost the script (a restart, SCRIPT FLUSH)', () => {
  it('is sent the script again by EVAL, and the check is counted once', async () => {
    const counter = await openCounter();
    expect(await counter.consume('flushed', 10, Date.now())).toMatchObject({ allowed: true, count: 1 });
    await redis.inspect.sendCommand(['SCRIPT', 'FLUSH']);
    expect(await counter.consume('flushed', 10, Date.now())).toMatchObject({ allowed: true, count: 2 });
    expect(await counter.consume('flushed', 10, Date.now())).toMatchObject({ allowed: true, count: 3 });
  });
});

describe('a check answered 503 while Redis stalled', () => {
  it('is not counted when Redis runs its script after all', async () => {
    const prefix = `test:${process.pid}:late:`;
    const counter = await RedisSlidingWindow.open({
      url: redis.url,
      windowMs: WINDOW,
      keyPrefix: prefix,
      commandTimeoutMs: 200,
    });
    counters.push(counter);
    const bucket = `${prefix}sub`;
    expect(await counter.consume('sub', 10, Date.now())).toMatchObject({ allowed: true, count: 1 });
    redis.pause();
    // The script is on its way when the deadline passes: the check is refused, and Redis runs it once it wakes.
    await expect(counter.consume('sub', 10, Date.now())).rejects.toMatchObject({ code: 'rate_limit_unavailable' });
    redis.resume();
    // On the same connection, after the late script: it has run by the time this is answered (count 3 with it).
    expect(await counter.consume('sub', 10, Date.now())).toMatchObject({ allowed: true });
    await waitFor(async () => (await redis.inspect.zCard(bucket)) === 2, {
      timeoutMs: 5_000,
      what: "the refused check's entry removed",
    });
    expect(await counter.consume('sub', 10, Date.now())).toMatchObject({ allowed: true, count: 3 });
  });
});

describe('the daily allowance of list rows in a Redis that stops answering', () => {
  it('gives back the rows of a take answered 503 when Redis runs it after all', async () => {
    const allowance = await RedisBatchAllowance.open({
      url: redis.url,
      perDay: 1000,
      keyPrefix: `test:${process.pid}:batch:`,
      commandTimeoutMs: 200,
    });
    try {
      const day = '2030-01-01';
      redis.pause();
      // The script is on its way when the deadline passes: the batch is refused, and Redis runs it once it wakes.
      await expect(allowance.take('sub', day, 300)).rejects.toMatchObject({ code: 'rate_limit_unavailable' });
      const key = `test:${process.pid}:batch:sub:${day}`;
      redis.resume();
      // Redis ran the late script (the key exists) and nothing of the refused batch stays taken.
      await waitFor(async () => (await redis.inspect.get(key)) === '0', {
        timeoutMs: 5_000,
        what: "the refused batch's rows given back",
      });
      expect(await allowance.take('sub', day, 100)).toEqual({ ok: true, left: 900 });
    } finally {
      redis.resume();
      await allowance.close();
    }
  });
});

describe('REDIS_URL in openRuntime', () => {
  // With REDIS_URL the runtime wants a SESSION_SECRET (every instance must sign cookies alike).
  const open = async (REDIS_URL: string) =>
    openRuntime(
      { ...loadConfig({ DATA_DIR: await tempDir(), SESSION_SECRET: 's'.repeat(40) }), REDIS_URL },
      { logger: createLogger('silent'), postcodes: buildPostcodeIndex(LOCALITY_ROWS) },
    );

  it('counts in Redis when set', async () => {
    const runtime = await open(redis.url);
    try {
      expect(runtime.rateLimitCounter).toBeInstanceOf(RedisSlidingWindow);
      expect(await runtime.rateLimitCounter.consume(`runtime:${process.pid}`, 1, Date.now())).toMatchObject({
        allowed: true,
        count: 1,
      });
    } finally {
      await runtime.close();
    }
  });

  it('refuses to start when Redis cannot be reached', async () => {
    await expect(open('redis://127.0.0.1:1')).rejects.toMatchObject({ code: 'rate_limit_unavailable' });
  });
});
