import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { runAdmin } from '../../helpers/run-cli';
import { checkPostcode, seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';

const WINDOW_MS = 60_000;

/** A clock the test moves by hand: the limiter, its headers and the app all read it. */
function fakeClock(start = Date.now()) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

function limitHeaders(res: Response) {
  const header = (name: string) => res.headers.get(name);
  return {
    limit: header('x-ratelimit-limit'),
    remaining: header('x-ratelimit-remaining'),
    reset: header('x-ratelimit-reset'),
    retryAfter: header('retry-after'),
  };
}

/** The headers every check response must carry; Reset in whole seconds within the window, never an epoch. */
function expectLimitHeaders(res: Response, limit: number, remaining: number): number {
  const h = limitHeaders(res);
  expect(h.limit).toBe(String(limit));
  expect(h.remaining).toBe(String(remaining));
  expect(h.reset).toMatch(/^[0-9]+$/);
  const reset = Number(h.reset);
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
  return reset;
}

async function expectRateLimited(res: Response, limit: number): Promise<number> {
  expect(res.status).toBe(429);
  expect(ErrorEnvelope.parse(await res.json()).error).toEqual({ code: 'rate_limited', message: 'Rate limit exceeded' });
  const reset = expectLimitHeaders(res, limit, 0);
  expect(limitHeaders(res).retryAfter).toBe(String(reset));
  return reset;
}

async function expectStatus(res: Response, status: number): Promise<Response> {
  expect(res.status).toBe(status);
  await res.arrayBuffer();
  return res;
}

function countStatuses(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
  return counts;
}

/** Sends `n` requests at once and waits for all of them, bodies read. */
async function inParallel(n: number, send: () => Promise<Response>): Promise<Response[]> {
  const responses = await Promise.all(Array.from({ length: n }, send));
  await Promise.all(responses.map((r) => r.arrayBuffer()));
  return responses;
}

/** A test server on a fake clock, started once for the describe block that calls this. */
function serverOnFakeClock(): { server: TestServer; time: ReturnType<typeof fakeClock> } {
  const ctx = {} as { server: TestServer; time: ReturnType<typeof fakeClock> };
  beforeAll(async () => {
    ctx.time = fakeClock();
    ctx.server = await startTestServer({ clock: ctx.time.clock });
  });
  afterAll(() => ctx.server.close());
  return ctx;
}

const INVALID_KEY = `sk_live_${'x'.repeat(40)}`;

describe('rate limit headers on check responses', () => {
  const ctx = serverOnFakeClock();

  it('carries Limit, Remaining and Reset on 200, 400 and 404 for a key, counting each, without Retry-After', async () => {
    const { apiKey } = await seedAccount(ctx.server.runtime);
    const ok = await expectStatus(await checkPostcode(ctx.server, apiKey, { postcode: '4000' }), 200);
    expect(expectLimitHeaders(ok, 100, 99)).toBe(60);
    ctx.time.advance(1500);
    const bad = await expectStatus(await checkPostcode(ctx.server, apiKey, { postcode: '40000' }), 400);
    // The oldest counted request (1.5 s ago) leaves in 58.5 s: rounded up.
    expect(expectLimitHeaders(bad, 100, 98)).toBe(59);
    const unknown = await expectStatus(await checkPostcode(ctx.server, apiKey, { postcode: '3000' }), 404);
    expectLimitHeaders(unknown, 100, 97);
    const notJson = await expectStatus(await checkPostcode(ctx.server, apiKey, '{"postcode":'), 400);
    expectLimitHeaders(notJson, 100, 96);
    const notJsonType = await expectStatus(
      await checkPostcode(ctx.server, apiKey, 'postcode=4000', { 'content-type': 'text/plain' }),
      415,
    );
    expectLimitHeaders(notJsonType, 100, 95);
    for (const res of [ok, bad, unknown, notJson, notJsonType]) expect(limitHeaders(res).retryAfter).toBeNull();
  });

  it("carries them on a 503 before the first data refresh (whose Retry-After is the refresh's, not the limit's)", async () => {
    const fresh = await startTestServer({ clock: ctx.time.clock, declarations: false });
    try {
      const { apiKey } = await seedAccount(fresh.runtime);
      const res = await expectStatus(await checkPostcode(fresh, apiKey, { postcode: '4000' }), 503);
      expectLimitHeaders(res, 100, 99);
    } finally {
      await fresh.close();
    }
  });

  it('carries them on 401 and 403, counted against the client address', async () => {
    const { apiKey: inactiveKey } = await seedAccount(ctx.server.runtime, { status: 'inactive' });
    const missing = await expectStatus(await checkPostcode(ctx.server, null, { postcode: '4000' }), 401);
    const invalid = await expectStatus(await checkPostcode(ctx.server, INVALID_KEY, { postcode: '4000' }), 401);
    const inactive = await expectStatus(await checkPostcode(ctx.server, inactiveKey, { postcode: '4000' }), 403);
    expectLimitHeaders(missing, 100, 99);
    expectLimitHeaders(invalid, 100, 98);
    expectLimitHeaders(inactive, 100, 97);
    for (const res of [missing, invalid, inactive]) expect(limitHeaders(res).retryAfter).toBeNull();
  });

  it('answers 429 `Rate limit exceeded` over the limit, Remaining 0, Retry-After equal to Reset', async () => {
    const { apiKey } = await seedAccount(ctx.server.runtime, { rateLimit: 3 });
    for (let i = 0; i < 3; i++) await expectStatus(await checkPostcode(ctx.server, apiKey, { postcode: '4000' }), 200);
    ctx.time.advance(20_000);
    expect(await expectRateLimited(await checkPostcode(ctx.server, apiKey, { postcode: '4000' }), 3)).toBe(40);
    // Refused before the body is looked at: a bad body gets the 429 too.
    expect(await expectRateLimited(await checkPostcode(ctx.server, apiKey, { postcode: 'nope' }), 3)).toBe(40);
  });

  it("reports the subscription's own limit", async () => {
    const { apiKey } = await seedAccount(ctx.server.runtime, { rateLimit: 250 });
    expectLimitHeaders(
      await expectStatus(await checkPostcode(ctx.server, apiKey, { postcode: '4000' }), 200),
      250,
      249,
    );
  });
});

describe('sliding window over HTTP', () => {
  const ctx = serverOnFakeClock();

  it('accepts exactly 100 of 150 concurrent requests on a fresh key, each with its own Remaining', async () => {
    const { apiKey } = await seedAccount(ctx.server.runtime);
    const responses = await inParallel(150, () => checkPostcode(ctx.server, apiKey, { postcode: '4000' }));
    expect(countStatuses(responses)).toEqual({ 200: 100, 429: 50 });
    const remaining = responses.filter((r) => r.status === 200).map((r) => Number(limitHeaders(r).remaining));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    for (const res of responses.filter((r) => r.status === 429)) {
      expect(limitHeaders(res)).toMatchObject({ remaining: '0', retryAfter: '60' });
    }
  });

  it('does not count 429s: a full window later the key has its whole limit again', async () => {
    const { apiKey } = await seedAccount(ctx.server.runtime);
    const send = () => checkPostcode(ctx.server, apiKey, { postcode: '4000' });
    expect(countStatuses(await inParallel(100, send))).toEqual({ 200: 100 });
    ctx.time.advance(30_000);
    // Were these counted, half the window would still be taken at the 60 s mark.
    expect(countStatuses(await inParallel(50, send))).toEqual({ 429: 50 });
    ctx.time.advance(30_000);
    expect(countStatuses(await inParallel(101, send))).toEqual({ 200: 100, 429: 1 });
  });

  it('lets a client through once it has waited Retry-After seconds, and not a second earlier', async () => {
    const { apiKey } = await seedAccount(ctx.server.runtime, { rateLimit: 2 });
    const send = () => checkPostcode(ctx.server, apiKey, { postcode: '4000' });
    await expectStatus(await send(), 200);
    ctx.time.advance(15_500);
    await expectStatus(await send(), 200);
    // The oldest leaves in 44.5 s: Retry-After must round up to 45, or the client would come back too early.
    const wait = await expectRateLimited(await send(), 2);
    expect(wait).toBe(45);
    ctx.time.advance((wait - 1) * 1000);
    expect(await expectRateLimited(await send(), 2)).toBe(1);
    ctx.time.advance(1000);
    expectLimitHeaders(await expectStatus(await send(), 200), 2, 0);
  });
});

describe('per-IP limit for requests without a valid key', () => {
  let servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
  });

  async function start(trustProxy: boolean | number): Promise<TestServer> {
    const server = await startTestServer({ clock: fakeClock().clock, trustProxy });
    servers.push(server);
    return server;
  }

  /** Spends the address's whole budget with a mix of missing and invalid keys, checking Remaining on the way. */
  async function exhaust(server: TestServer, headers: Record<string, string> = {}): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const res = await checkPostcode(server, i % 2 ? INVALID_KEY : null, { postcode: '4000' }, headers);
      await expectStatus(res, 401);
      expectLimitHeaders(res, 100, 99 - i);
    }
  }

  it('answers the 101st keyless request from one address with 429, while a valid key from it is still served', async () => {
    const server = await start(false);
    await exhaust(server);
    await expectRateLimited(await checkPostcode(server, INVALID_KEY, { postcode: '4000' }), 100);
    await expectRateLimited(await checkPostcode(server, null, { postcode: '4000' }), 100);
    const { apiKey } = await seedAccount(server.runtime);
    expectLimitHeaders(await expectStatus(await checkPostcode(server, apiKey, { postcode: '4000' }), 200), 100, 99);
  });

  it('ignores X-Forwarded-For when TRUST_PROXY is off: a forged address does not get a new budget', async () => {
    const server = await start(false);
    await exhaust(server, { 'x-forwarded-for': '203.0.113.7' });
    await expectRateLimited(
      await checkPostcode(server, INVALID_KEY, { postcode: '4000' }, { 'x-forwarded-for': '198.51.100.9' }),
      100,
    );
  });

  it('uses the forwarded client address when TRUST_PROXY trusts the proxy in front', async () => {
    const server = await start(1);
    await exhaust(server, { 'x-forwarded-for': '203.0.113.7' });
    await expectRateLimited(
      await checkPostcode(server, INVALID_KEY, { postcode: '4000' }, { 'x-forwarded-for': '203.0.113.7' }),
      100,
    );
    const other = await checkPostcode(server, INVALID_KEY, { postcode: '4000' }, { 'x-forwarded-for': '198.51.100.9' });
    expectLimitHeaders(await expectStatus(other, 401), 100, 99);
    // Only the hop the proxy appended is believed: a client cannot prepend its way to a new budget.
    const prepended = await checkPostcode(
      server,
      INVALID_KEY,
      { postcode: '4000' },
      { 'x-forwarded-for': '192.0.2.1, 203.0.113.7' },
    );
    await expectRateLimited(prepended, 100);
  });
});

describe('limits changed by the admin CLI', () => {
  const ctx = serverOnFakeClock();

  it('honours `set-subscription --rate-limit 5` in the running server within 2 s', async () => {
    const { apiKey, email } = await seedAccount(ctx.server.runtime);
    const send = () => checkPostcode(ctx.server, apiKey, { postcode: '4000' });
    expectLimitHeaders(await expectStatus(await send(), 200), 100, 99);

    const { code, stdout } = await runAdmin(ctx.server.dataDir, [
      'set-subscription',
      '--email',
      email,
      '--rate-limit',
      '5',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('5 requests/minute');

    let limit: string | null = null;
    await waitFor(
      async () => {
        // Each probe starts a fresh window, so the probes themselves do not use up the new limit.
        ctx.time.advance(WINDOW_MS);
        const res = await expectStatus(await send(), 200);
        limit = limitHeaders(res).limit;
        if (limit !== '5') return false;
        expect(limitHeaders(res).remaining).toBe('4');
        return true;
      },
      { timeoutMs: 2_000, intervalMs: 50, what: 'the new limit of 5' },
    );
    expect(limit).toBe('5');
    for (let i = 0; i < 4; i++) await expectStatus(await send(), 200);
    await expectRateLimited(await send(), 5);
  });
});
