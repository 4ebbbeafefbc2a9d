import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FetchError, ingestUserAgent, PoliteFetcher, type FetcherOptions } from '../../../server/http-client/fetcher';
import { scenario } from '../../fixtures/ingest/scenario';
import { startMockSite, type MockSite } from '../../fixtures/ingest/site';

const s = scenario('2026-03-01');
const PATH = s.declarations[0]!.path;
let site: MockSite;

beforeAll(async () => {
  site = await startMockSite({ declarations: s.declarations, drfaCsv: s.drfaCsv });
});
afterAll(() => site.close());
beforeEach(() => {
  site.requests.length = 0;
  site.faults.clear();
  site.maxInFlight = 0;
  site.options.delayMs = 1;
});

/** A fetcher whose back-off sleeps are recorded instead of waited for. */
function fetcher(options: FetcherOptions = {}) {
  const delays: number[] = [];
  const f = new PoliteFetcher({
    retries: 3,
    retryBaseMs: 100,
    retryMaxMs: 1_000,
    timeoutMs: 2_000,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return { f, delays };
}

describe('polite fetching', () => {
  it('sends a browser-like User-Agent that says who runs the ingest', async () => {
    const { f } = fetcher({ userAgent: ingestUserAgent('ops@clinic.example') });
    await f.text(site.url + PATH);
    const ua = site.requests[0]!.userAgent;
    expect(ua).toMatch(/^Mozilla\/5\.0 .*Chrome\/[0-9.]+ Safari/);
    expect(ua).toContain('+ops@clinic.example');
    expect(ingestUserAgent()).not.toContain('+');
  });

  it('retries 5xx, 403 and 429 answers with exponential back-off and jitter, then succeeds', async () => {
    site.faults.set(PATH, [{ status: 503 }, { status: 403 }, { status: 500 }]);
    const { f, delays } = fetcher();
    const html = await f.text(site.url + PATH);
    expect(html).toContain(s.declarations[0]!.title.slice(0, 20));
    expect(site.requests).toHaveLength(4);
    // Half fixed, half random (random() = 0.5 here): 75 % of 100, 200, 400 ms.
    expect(delays).toEqual([75, 150, 300]);
  });

  it('spreads retries with jitter between half and all of the back-off', () => {
    const low = new PoliteFetcher({ retryBaseMs: 1000, retryMaxMs: 60_000, random: () => 0 });
    const high = new PoliteFetcher({ retryBaseMs: 1000, retryMaxMs: 60_000, random: () => 0.999 });
    expect([0, 1, 2, 3].map((a) => low.backoffMs(a))).toEqual([500, 1000, 2000, 4000]);
    expect(high.backoffMs(3)).toBeGreaterThan(7990);
    expect(
      new PoliteFetcher({ retryBaseMs: 1000, retryMaxMs: 5000, random: () => 0.999 }).backoffMs(10),
    ).toBeLessThanOrEqual(5000);
  });

  it('waits at least as long as Retry-After asks (within the cap)', async () => {
    site.faults.set(PATH, [{ status: 429, retryAfter: '1' }]);
    const { f, delays } = fetcher();
    await f.text(site.url + PATH);
    expect(delays).toEqual([1000]);
  });

  it('gives up after the retries with the last reason', async () => {
    site.faults.set(PATH, { status: 500 });
    const { f, delays } = fetcher({ retries: 2 });
    const err = await f.text(site.url + PATH).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).message).toMatch(/HTTP 500 \(after 3 attempts\)$/);
    expect((err as FetchError).attempts).toBe(3);
    expect(delays).toHaveLength(2);
  });

  it('does not retry an answer retrying cannot change (404)', async () => {
    const { f, delays } = fetcher();
    const err = (await f.text(site.url + '/Pages/missing.aspx').catch((e: unknown) => e)) as FetchError;
    expect(err.status).toBe(404);
    expect(err.attempts).toBe(1);
    expect(delays).toEqual([]);
  });

  it('times out a request that never answers, and retries it', async () => {
    site.faults.set(PATH, [{ hang: true }]);
    const { f, delays } = fetcher({ timeoutMs: 150 });
    const started = Date.now();
    await f.text(site.url + PATH);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(delays).toHaveLength(1);
    site.faults.set(PATH, { hang: true });
    const err = (await f.text(site.url + PATH).catch((e: unknown) => e)) as FetchError;
    expect(err.message).toMatch(/no answer within 150 ms/);
  });

  it('retries a connection cut in the middle of the body', async () => {
    site.faults.set(PATH, [{ reset: true }]);
    const { f, delays } = fetcher();
    const html = await f.text(site.url + PATH);
    expect(html).toMatch(/<\/html>\s*$/);
    expect(delays).toHaveLength(1);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    site.options.delayMs = 20;
    const { f } = fetcher({ concurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, () => f.text(site.url + PATH)));
    expect(site.requests).toHaveLength(12);
    expect(site.maxInFlight).toBe(3);
  });

  it('does not start a request whose caller has given up', async () => {
    const { f } = fetcher();
    const abort = new AbortController();
    abort.abort(new Error('cancelled'));
    await expect(f.text(site.url + PATH, { signal: abort.signal })).rejects.toThrow('cancelled');
    expect(site.requests).toHaveLength(0);
  });
});
