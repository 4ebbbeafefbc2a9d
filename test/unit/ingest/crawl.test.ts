import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { crawlDisasterAssist, type CrawlProgress } from '../../../server/ingest/crawl';
import { IngestError } from '../../../server/ingest/errors';
import { PoliteFetcher } from '../../../server/http-client/fetcher';
import { scenario } from '../../fixtures/ingest/scenario';
import {
  LIST_PATH,
  listPageHtml,
  startMockSite,
  type MockSite,
  type SiteDeclaration,
} from '../../fixtures/ingest/site';

const s = scenario('2026-03-01');
let site: MockSite;

const fetcher = () => new PoliteFetcher({ retries: 1, retryBaseMs: 1, timeoutMs: 2_000 });
const listRequests = () =>
  site.requests.filter((r) => r.path.startsWith(LIST_PATH)).map((r) => r.path.slice(LIST_PATH.length));

beforeAll(async () => {
  site = await startMockSite({ declarations: s.declarations, pageSize: 3 });
});
afterAll(() => site.close());
beforeEach(() => {
  site.requests.length = 0;
  site.faults.clear();
  site.faultFor = null;
  site.options = { declarations: s.declarations, pageSize: 3 };
});

describe('crawling DisasterAssist', () => {
  it('follows ?page=N until a page has no rows, and fetches every event page once', async () => {
    const progress: CrawlProgress[] = [];
    const result = await crawlDisasterAssist({
      baseUrl: site.url,
      fetcher: fetcher(),
      onProgress: (p) => progress.push(p),
    });
    expect(listRequests()).toEqual(['?page=1', '?page=2', '?page=3', '?page=4']);
    expect(result.listPages).toBe(3);
    expect(result.listed.map((r) => r.agrn)).toEqual(s.declarations.map((d) => d.agrn));
    expect([...result.events.keys()].sort()).toEqual(s.declarations.map((d) => d.agrn).sort());
    const eventRequests = site.requests.filter((r) => r.path.startsWith('/Pages/'));
    expect(eventRequests).toHaveLength(s.declarations.length);
    expect(result.problems).toEqual([]);
    const last = progress.at(-1)!;
    expect(last).toEqual({ listPages: 3, listed: 7, eventPagesParsed: 7, listPath: 'html' });
    expect(progress.map((p) => p.eventPagesParsed)).toEqual(
      [...progress.map((p) => p.eventPagesParsed)].sort((a, b) => a - b),
    );
  });

  it('stops when a page repeats rows already seen (a site that serves its last page for any N)', async () => {
    const last = listPageHtml(s.declarations.slice(6));
    site.faultFor = (path) => (/page=([4-9]|[1-9][0-9])$/.test(path) ? { body: last } : undefined);
    const result = await crawlDisasterAssist({ baseUrl: site.url, fetcher: fetcher() });
    expect(listRequests()).toEqual(['?page=1', '?page=2', '?page=3', '?page=4']);
    expect(result.listed).toHaveLength(7);
  });

  it('takes an AGRN listed twice once, warning when the two rows link different pages', async () => {
    const twin = { ...s.declarations[0]!, path: '/Pages/disasters/other-copy.aspx' };
    site.options = { declarations: [s.declarations[0]!, s.declarations[0]!, s.declarations[1]!, twin], pageSize: 3 };
    const result = await crawlDisasterAssist({ baseUrl: site.url, fetcher: fetcher() });
    expect(result.listed.map((r) => r.agrn)).toEqual([s.declarations[0]!.agrn, s.declarations[1]!.agrn]);
    expect(site.requests.filter((r) => r.path === s.declarations[0]!.path)).toHaveLength(1);
    expect(result.warnings).toEqual([expect.stringMatching(/^AGRN 1216 is listed twice with different event pages/)]);
    expect(site.requests.some((r) => r.path.includes('other-copy'))).toBe(false);
  });

  it('stops at a 404 past the first page', async () => {
    site.faultFor = (path) => (path.endsWith('page=3') ? { status: 404 } : undefined);
    const result = await crawlDisasterAssist({ baseUrl: site.url, fetcher: fetcher() });
    expect(result.listPages).toBe(2);
    expect(result.listed).toHaveLength(6);
  });

  it('refuses a list that never ends', async () => {
    let n = 0;
    site.faultFor = (path) => {
      if (!path.startsWith(LIST_PATH)) return undefined;
      const d: SiteDeclaration = { ...s.declarations[0]!, agrn: String(5000 + n++), path: `/Pages/x-${n}.aspx` };
      return { body: listPageHtml([d]) };
    };
    const err = await crawlDisasterAssist({ baseUrl: site.url, fetcher: fetcher(), maxPages: 5 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(IngestError);
    expect((err as IngestError).message).toMatch(/did not end after 5 pages/);
  });

  it('refuses a first page without rows', async () => {
    site.options = { declarations: [] };
    await expect(crawlDisasterAssist({ baseUrl: site.url, fetcher: fetcher() })).rejects.toThrow(
      /no declarations on the first list page/,
    );
  });

  it('reports an event page that is gone or not on the site as a record problem', async () => {
    const offsite = { ...s.declarations[1]!, path: 'http://192.0.2.1/Pages/elsewhere.aspx' };
    site.options = { declarations: [s.declarations[0]!, offsite, s.declarations[2]!], pageSize: 3 };
    site.faults.set(s.declarations[0]!.path, { status: 404 });
    const result = await crawlDisasterAssist({ baseUrl: site.url, fetcher: fetcher() });
    expect(result.problems).toEqual([
      {
        agrn: offsite.agrn,
        url: 'http://192.0.2.1/Pages/elsewhere.aspx',
        reason: expect.stringMatching(/not on http:\/\/127\.0\.0\.1:[0-9]+; not fetched/),
      },
      {
        agrn: s.declarations[0]!.agrn,
        url: site.url + s.declarations[0]!.path,
        reason: 'event page answered HTTP 404',
      },
    ]);
    expect(site.requests.some((r) => r.path.includes('elsewhere'))).toBe(false);
    expect([...result.events.keys()]).toEqual([s.declarations[2]!.agrn]);
  });

  it('fails as a network error when a page keeps failing, and stops fetching the rest', async () => {
    const many = Array.from({ length: 60 }, (_, i): SiteDeclaration => ({
      ...s.declarations[0]!,
      agrn: String(4000 + i),
      path: `/Pages/e-${i}.aspx`,
    }));
    site.options = { declarations: many, pageSize: 30 };
    site.faults.set('/Pages/e-0.aspx', { status: 500 });
    const err = (await crawlDisasterAssist({
      baseUrl: site.url,
      fetcher: new PoliteFetcher({ concurrency: 1, retries: 1, retryBaseMs: 1 }),
    }).catch((e: unknown) => e)) as IngestError;
    expect(err).toBeInstanceOf(IngestError);
    expect(err.kind).toBe('network');
    expect(err.message).toMatch(/e-0\.aspx: HTTP 500 \(after 2 attempts\)/);
    // Page 1 and the first event page (twice); everything queued after it is cancelled, not fetched.
    expect(site.requests.length).toBeLessThan(5);
  });

  it('fails when the list page itself fails', async () => {
    site.faultFor = (path) => (path.endsWith('page=2') ? { status: 502 } : undefined);
    const err = (await crawlDisasterAssist({ baseUrl: site.url, fetcher: fetcher() }).catch(
      (e: unknown) => e,
    )) as IngestError;
    expect(err.kind).toBe('network');
    expect(err.message).toMatch(/page=2: HTTP 502/);
  });

  it('can be cancelled', async () => {
    const abort = new AbortController();
    abort.abort();
    await expect(crawlDisasterAssist({ baseUrl: site.url, fetcher: fetcher(), signal: abort.signal })).rejects.toThrow(
      /cancelled/,
    );
    expect(site.requests).toHaveLength(0);
  });
});
