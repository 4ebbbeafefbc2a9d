/**
 * What express-rate-limit does that makes check-rate-limit.ts keep its two small bypasses (the limit in the store key,
 * its own headers), pinned so that a release of the library that lifts either limitation makes this fail, and the
 * bypass can go. Plus the limiter itself driven through the real library: the limit reaches the store with the key,
 * and a refusal is decided by the library and never recorded.
 */
import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type Options, type Store } from 'express-rate-limit';
import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../server/contract-error';
import { checkRateLimit, WINDOW_MS } from '../../../server/rate-limit/check-rate-limit';
import { InMemorySlidingWindow, type SlidingWindowCounter } from '../../../server/rate-limit/sliding-window';

const T0 = Date.UTC(2026, 0, 1);

/** Just what express-rate-limit touches of a request and a response. */
function exchange(locals: Record<string, unknown> = {}) {
  const headers: Record<string, string> = {};
  const req = { ip: '192.0.2.1', headers: {}, app: { get: () => false }, originalUrl: '/api/v1/check-postcode' };
  const res = {
    locals,
    headersSent: false,
    writableEnded: false,
    statusCode: 200,
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value);
      return this;
    },
    status(code: number) {
      this.statusCode = code;
      return this;
    },
    send() {
      this.writableEnded = true;
      return this;
    },
  };
  return { req: req as unknown as Request, res: res as unknown as Response & { statusCode: number }, headers };
}

/** Runs one middleware; resolves with what it passed to next ('next' for nothing), or 'answered'. */
function run(middleware: RequestHandler, req: Request, res: Response): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const done = middleware(req, res, (err?: unknown) => resolve(err ?? 'next')) as unknown;
    void Promise.resolve(done).then(() => resolve('answered'), reject);
  });
}

function fixedStore(totalHits: number, resetTime?: Date): Store & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    increment: (...args: unknown[]) => {
      calls.push(args);
      return { totalHits, resetTime };
    },
    decrement: () => undefined,
    resetKey: () => undefined,
  };
}

/** The library's limiter, limit 5, one key, over a store that always answers `totalHits` (and `resetTime`). */
function libraryLimiter(
  totalHits: number,
  headers: Partial<Pick<Options, 'legacyHeaders' | 'standardHeaders'>>,
  resetTime?: Date,
) {
  return rateLimit({
    windowMs: WINDOW_MS,
    store: fixedStore(totalHits, resetTime),
    limit: 5,
    keyGenerator: () => 'k',
    ...headers,
  });
}

describe('express-rate-limit, as the check limiter relies on it', () => {
  it('hands its store the key alone, and asks for the limit only after counting', async () => {
    const order: string[] = [];
    const store = fixedStore(1);
    const limiter = rateLimit({
      windowMs: WINDOW_MS,
      store,
      standardHeaders: false,
      legacyHeaders: false,
      keyGenerator: () => (order.push('key'), 'bucket'),
      limit: () => (order.push(`limit after ${store.calls.length} increment(s)`), 5),
    });
    const { req, res } = exchange();
    expect(await run(limiter, req, res)).toBe('next');
    expect(store.calls).toEqual([['bucket']]);
    expect(order).toEqual(['key', 'limit after 1 increment(s)']);
  });

  it('gives an epoch as its legacy X-RateLimit-Reset and rewrites Date; its draft-6 headers are RateLimit-*', async () => {
    const resetTime = new Date(Date.now() + 30_000);
    const legacy = exchange();
    await run(libraryLimiter(1, { legacyHeaders: true }, resetTime), legacy.req, legacy.res);
    expect(legacy.headers['x-ratelimit-reset']).toBe(String(Math.ceil(resetTime.getTime() / 1000)));
    expect(legacy.headers).toHaveProperty('date');

    const draft6 = exchange();
    await run(
      libraryLimiter(1, { legacyHeaders: false, standardHeaders: 'draft-6' }, resetTime),
      draft6.req,
      draft6.res,
    );
    expect(Object.keys(draft6.headers).sort()).toEqual([
      'ratelimit-limit',
      'ratelimit-policy',
      'ratelimit-remaining',
      'ratelimit-reset',
    ]);
  });

  it('sets no Retry-After on a refusal when its own headers are off', async () => {
    const limiter = libraryLimiter(6, { legacyHeaders: false, standardHeaders: false });
    const { req, res, headers } = exchange();
    expect(await run(limiter, req, res)).toBe('answered');
    expect(res.statusCode).toBe(429);
    expect(headers).not.toHaveProperty('retry-after');
  });
});

describe('checkRateLimit through express-rate-limit', () => {
  /** What identifyApiKey leaves for a valid key whose subscription allows `rateLimit` a minute. */
  const keyed = (rateLimit: number) => ({
    caller: { id: 'k1', subscription: { rate_limit: rateLimit } },
  });

  function spyingCounter() {
    const window = new InMemorySlidingWindow(WINDOW_MS);
    const consumed: [string, number][] = [];
    const counter: SlidingWindowCounter = {
      consume: (key, limit, now) => (consumed.push([key, limit]), window.consume(key, limit, now)),
      undo: (key) => window.undo(key),
      reset: (key) => window.reset(key),
      purge: (now) => window.purge(now),
    };
    return { counter, consumed, window };
  }

  it('counts the bucket at the limit express-rate-limit applies, and the library refuses what the window refuses, unrecorded', async () => {
    const { counter, consumed, window } = spyingCounter();
    const [limiter, headers] = checkRateLimit(counter, () => T0) as [RequestHandler, RequestHandler];
    for (let i = 0; i < 2; i++) {
      const { req, res } = exchange(keyed(2));
      expect(await run(limiter!, req, res)).toBe('next');
      expect(await run(headers!, req, res)).toBe('next');
      expect((req as Request & { rateLimit: { limit: number; key: string } }).rateLimit).toMatchObject({
        limit: 2,
        remaining: 1 - i,
      });
    }
    const refused = exchange(keyed(2));
    const err = await run(limiter!, refused.req, refused.res);
    expect(err).toBeInstanceOf(ContractError);
    expect(err).toMatchObject({ code: 'rate_limited', headers: { 'Retry-After': '60' } });
    expect(refused.headers).toMatchObject({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '60',
    });
    expect(consumed).toEqual([
      ['key:k1', 2],
      ['key:k1', 2],
      ['key:k1', 2],
    ]);
    // Two recorded, not three: with a limit of 3 the bucket has exactly one slot left.
    expect(window.consume('key:k1', 3, T0)).toMatchObject({ allowed: true, count: 3 });
  });
});
