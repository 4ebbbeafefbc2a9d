import { describe, expect, it, vi } from 'vitest';
import { errorBody } from '../../../shared/api/envelope';
import type { ApiErrorCode } from '../../../shared/api/errors';
import { CheckService, FAILURE_TTL_MS } from '../../../extension/background/check-service';
import type { Fetch } from '../../../ui/api/server-request';
import { brisbaneResult } from './fixtures';

const SERVER = 'https://eligibility.example.test';
const KEY = 'sk_live_0123456789abcdefABCDEF0123456789';

function okBody(postcode = '4000') {
  const r = brisbaneResult();
  return { success: true, data: { ...r.data, location: { ...r.data.location, postcode } }, metadata: r.metadata };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function errorResponse(code: ApiErrorCode, status: number, headers: Record<string, string> = {}): Response {
  return json(status, errorBody(code), headers);
}

function service(
  fetchImpl: Fetch,
  options: { key?: string; url?: string; permitted?: boolean; now?: () => number } = {},
) {
  const fetch = vi.fn(fetchImpl);
  const config = { serverUrl: options.url ?? SERVER, apiKey: options.key ?? KEY };
  const svc = new CheckService({
    fetch,
    now: options.now,
    config: async () => config,
    hasPermission: async () => options.permitted ?? true,
  });
  return { svc, fetch, config };
}

describe('CheckService', () => {
  it('sends only the postcode, with the key in x-api-key', async () => {
    const { svc, fetch } = service(async () => json(200, okBody()));
    const outcome = await svc.check('4000');
    expect(outcome.ok).toBe(true);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe(`${SERVER}/api/v1/check-postcode`);
    expect(init?.method).toBe('POST');
    expect(init?.body).toBe('{"postcode":"4000"}');
    expect((init?.headers as Record<string, string>)['x-api-key']).toBe(KEY);
    expect(init?.credentials).toBe('omit');
  });

  it('reuses an answer for the same postcode for a short time, then asks again', async () => {
    let now = 1_000_000;
    const { svc, fetch } = service(async () => json(200, okBody()), { now: () => now });
    await svc.check('4000');
    await svc.check('4000');
    expect(fetch).toHaveBeenCalledTimes(1);
    now += 5 * 60_000 + 1;
    await svc.check('4000');
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('sends one request for identical checks in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { svc, fetch } = service(async () => {
      await gate;
      return json(200, okBody());
    });
    const all = Promise.all([svc.check('4000'), svc.check('4000'), svc.check('4000'), svc.check('2480')]);
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    release();
    const results = await all;
    expect(results.every((r) => r.ok)).toBe(true);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('a new key (clear) makes it ask again', async () => {
    const { svc, fetch } = service(async () => json(200, okBody()));
    await svc.check('4000');
    svc.clear();
    await svc.check('4000');
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('respects 429 Retry-After: no request until it has passed', async () => {
    let now = 5_000_000;
    let limited = true;
    const { svc, fetch } = service(
      async () => (limited ? errorResponse('rate_limited', 429, { 'retry-after': '12' }) : json(200, okBody())),
      { now: () => now },
    );
    const first = await svc.check('4000');
    expect(first).toMatchObject({ ok: false, problem: 'rate_limited', retryAt: now + 12_000 });
    now += 5_000;
    const second = await svc.check('2480');
    expect(second).toMatchObject({ ok: false, problem: 'rate_limited', retryAt: 5_012_000 });
    expect(fetch).toHaveBeenCalledTimes(1);
    limited = false;
    now += 7_001;
    expect((await svc.check('4000')).ok).toBe(true);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('503 data_unavailable waits for Retry-After too', async () => {
    const { svc, fetch } = service(async () => errorResponse('data_unavailable', 503, { 'retry-after': '60' }));
    expect(await svc.check('4000')).toMatchObject({ problem: 'data_unavailable' });
    expect(await svc.check('4000')).toMatchObject({ problem: 'data_unavailable' });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  const failures: [string, () => Promise<Response>, string][] = [
    ['401 invalid key', async () => errorResponse('invalid_api_key', 401), 'invalid_key'],
    ['401 missing key', async () => errorResponse('missing_api_key', 401), 'no_key'],
    ['403 inactive subscription', async () => errorResponse('subscription_inactive', 403), 'subscription_inactive'],
    ['404 postcode not found', async () => errorResponse('postcode_not_found', 404), 'postcode_not_found'],
    ['500 internal error', async () => errorResponse('internal_error', 500), 'server_error'],
    [
      '502 from a proxy, not JSON',
      async () => new Response('<html>Bad gateway</html>', { status: 502 }),
      'unreachable',
    ],
    ['200 with a body that is not the contract', async () => json(200, { hello: 'world' }), 'server_error'],
    ['network failure', async () => Promise.reject(new TypeError('Failed to fetch')), 'unreachable'],
    ['timeout', async () => Promise.reject(new DOMException('signal timed out', 'TimeoutError')), 'unreachable'],
  ];
  it.each(failures)('%s → %s', async (_name, answer, problem) => {
    const { svc } = service(answer);
    expect(await svc.check('4000')).toMatchObject({ ok: false, postcode: '4000', problem });
  });

  it('reuses a key or server failure only briefly, and not after a new key', async () => {
    let now = 1_000_000;
    const { svc, fetch } = service(async () => errorResponse('invalid_api_key', 401), { now: () => now });
    await svc.check('4000');
    expect(await svc.check('4000')).toMatchObject({ problem: 'invalid_key' });
    expect(fetch).toHaveBeenCalledTimes(1);
    now += FAILURE_TTL_MS + 1;
    await svc.check('4000');
    expect(fetch).toHaveBeenCalledTimes(2);
    svc.clear();
    await svc.check('4000');
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it("does not give an answer from before midnight (Sydney) as today's", async () => {
    // 23:58 in Sydney on 1 July 2026 (AEST, UTC+10), then one and two minutes later: well within the reuse time.
    let now = Date.parse('2026-07-01T13:58:00Z');
    const { svc, fetch } = service(async () => json(200, okBody()), { now: () => now });
    await svc.check('4000');
    now += 60_000;
    await svc.check('4000');
    expect(fetch).toHaveBeenCalledTimes(1);
    now += 60_000;
    await svc.check('4000');
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('answers without a request when nothing is configured, the key is missing, access is not granted or the postcode is not Australian', async () => {
    const never: Fetch = async () => {
      throw new Error('must not be called');
    };
    expect(await service(never, { url: '' }).svc.check('4000')).toMatchObject({ problem: 'not_configured' });
    expect(await service(never, { key: '' }).svc.check('4000')).toMatchObject({ problem: 'no_key' });
    expect(await service(never, { permitted: false }).svc.check('4000')).toMatchObject({ problem: 'no_permission' });
    expect(await service(never).svc.check('0100')).toMatchObject({ problem: 'invalid_postcode' });
    expect(await service(never).svc.check('40000')).toMatchObject({ problem: 'invalid_postcode' });
  });
});

describe('CheckService: many fields at once', () => {
  it('sends at most 4 requests at a time and answers them all', async () => {
    let inFlight = 0;
    let peak = 0;
    const { svc, fetch } = service(async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return json(200, okBody());
    });
    const postcodes = ['4000', '4001', '4002', '4003', '4004', '4005', '4006', '4007', '4008', '4009'];
    const results = await Promise.all(postcodes.map((p) => svc.check(p)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(fetch).toHaveBeenCalledTimes(10);
    expect(peak).toBe(4);
  });

  it('queued requests stop once the server says to wait', async () => {
    const { svc, fetch } = service(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return errorResponse('rate_limited', 429, { 'retry-after': '30' });
    });
    const results = await Promise.all(['4000', '4001', '4002', '4003', '4004', '4005'].map((p) => svc.check(p)));
    expect(results.every((r) => !r.ok && r.problem === 'rate_limited')).toBe(true);
    expect(fetch).toHaveBeenCalledTimes(4);
  });
});
