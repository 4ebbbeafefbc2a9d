import { IngestError, type RecordProblem } from './errors';
import { parseEventPage, parseListPage, listPageUrl, type EventPage, type ListedDeclaration } from './disasterassist';
import { FetchError, type PoliteFetcher } from '../http-client/fetcher';
import { launchRenderedListReader, type RenderedListOptions, type RenderedListReader } from './rendered-list';

/** How the list was read: from the HTML as served, or from the page as Chromium rendered it after its script ran. */
export type ListPath = 'html' | 'browser';

export interface CrawlProgress {
  listPages: number;
  listed: number;
  eventPagesParsed: number;
  listPath: ListPath | null;
}

export interface CrawlResult {
  listPages: number;
  listed: ListedDeclaration[];
  /** Event pages by AGRN of the list row that linked them. */
  events: Map<string, EventPage>;
  problems: RecordProblem[];
  warnings: string[];
  listPath: ListPath;
}

export interface BrowserOptions {
  /** CHROMIUM_PATH; unset = the system's Chromium (server/ingest/chromium.ts). */
  executablePath?: string;
  /** List pages rendered at once (default 3: a few, to go easy on the site). */
  pagesAtOnce?: number;
  /** Per list page, navigation to rendered rows (default 60 s). */
  timeoutMs?: number;
  /** Tries per list page (default 2). */
  attempts?: number;
  /** Injected by tests. */
  launch?: (options: RenderedListOptions) => Promise<RenderedListReader>;
}

export const DEFAULT_BROWSER_OPTIONS = { pagesAtOnce: 3, timeoutMs: 60_000, attempts: 2 } as const;

export interface CrawlOptions {
  baseUrl: string;
  fetcher: PoliteFetcher;
  browser?: BrowserOptions;
  /** A site that never runs out of pages is a changed site, not 10,000 declarations. */
  maxPages?: number;
  onProgress?: (progress: CrawlProgress) => void;
  /** Cancels the crawl (server shutdown). */
  signal?: AbortSignal;
}

/**
 * Every declaration DisasterAssist lists: list pages ?page=1, 2, … until one has no new rows, and each row's event
 * page, fetched as soon as its row is read (the fetcher bounds how many run at once). Page 1 as served decides how
 * the list is read: when its HTML has rows, every page is read as served; when it has none (the live site draws
 * its table with a script), every page is loaded in one headless Chromium, a few at a time, and read as rendered.
 * Any network failure or list page that changed aborts the whole crawl and cancels what is still queued; an event
 * page that cannot be read is a record problem, reported with its URL.
 */
export async function crawlDisasterAssist(options: CrawlOptions): Promise<CrawlResult> {
  const { baseUrl, fetcher, maxPages = 200 } = options;
  const browserOptions = { ...DEFAULT_BROWSER_OPTIONS, ...options.browser };
  const origin = new URL(baseUrl).origin;
  const listed: ListedDeclaration[] = [];
  const byAgrn = new Map<string, ListedDeclaration>();
  const events = new Map<string, EventPage>();
  const problems: RecordProblem[] = [];
  const warnings: string[] = [];
  const pending: Promise<void>[] = [];
  const progress: CrawlProgress = { listPages: 0, listed: 0, eventPagesParsed: 0, listPath: null };
  const report = () => options.onProgress?.({ ...progress });
  const abort = new AbortController();
  let failure: unknown = null;
  if (options.signal?.aborted) throw new IngestError('internal', 'refresh cancelled');
  const onCancel = () => fail(new IngestError('internal', 'refresh cancelled'));
  options.signal?.addEventListener('abort', onCancel, { once: true });
  const fail = (err: unknown) => {
    failure ??= err;
    abort.abort(err);
  };

  const fetchEvent = async (row: ListedDeclaration): Promise<void> => {
    if (new URL(row.url).origin !== origin) {
      problems.push({ agrn: row.agrn, url: row.url, reason: `event page is not on ${origin}; not fetched` });
      return;
    }
    try {
      const html = await fetcher.text(row.url, { signal: abort.signal });
      events.set(row.agrn, parseEventPage(html, row.url));
    } catch (err) {
      if (abort.signal.aborted) return;
      if (err instanceof IngestError) problems.push({ agrn: row.agrn, url: row.url, reason: err.message });
      else if (err instanceof FetchError && (err.status === 404 || err.status === 410)) {
        problems.push({ agrn: row.agrn, url: row.url, reason: `event page answered HTTP ${err.status}` });
      } else {
        fail(err);
        return;
      }
    }
    progress.eventPagesParsed++;
    report();
  };

  /** Adds a page's rows; how many were new (0: the list has ended, or repeats its last page). */
  const take = (rows: ListedDeclaration[]): number => {
    let fresh = 0;
    for (const row of rows) {
      const earlier = byAgrn.get(row.agrn);
      if (earlier) {
        if (earlier.url !== row.url) {
          warnings.push(
            `AGRN ${row.agrn} is listed twice with different event pages (${earlier.url}, ${row.url}); the first is used`,
          );
        }
        continue;
      }
      fresh++;
      byAgrn.set(row.agrn, row);
      listed.push(row);
      pending.push(fetchEvent(row));
    }
    return fresh;
  };

  let listPath: ListPath = 'html';
  let reader: RenderedListReader | null = null;
  try {
    const firstUrl = listPageUrl(baseUrl, 1);
    const served = parseListPage(await fetcher.text(firstUrl, { signal: abort.signal }), firstUrl, 1, {
      missingTable: 'empty',
    });
    if (served.length === 0) {
      listPath = 'browser';
      reader = await (browserOptions.launch ?? launchRenderedListReader)({
        executablePath: browserOptions.executablePath,
        userAgent: fetcher.userAgent,
        timeoutMs: browserOptions.timeoutMs,
        attempts: browserOptions.attempts,
        signal: abort.signal,
      });
    }
    progress.listPath = listPath;
    const browser = reader;
    const readPage = async (page: number): Promise<ListedDeclaration[]> => {
      const url = listPageUrl(baseUrl, page);
      if (browser) return parseListPage(await browser.render(url), url, page, { missingTable: 'empty' });
      if (page === 1) return served;
      try {
        return parseListPage(await fetcher.text(url, { signal: abort.signal }), url, page);
      } catch (err) {
        // Past the first page, "not found" is how some sites say the pages ran out.
        if (err instanceof FetchError && err.status === 404) return [];
        throw err;
      }
    };
    const pagesAtOnce = browser ? Math.max(1, browserOptions.pagesAtOnce) : 1;
    let ended = false;
    for (let first = 1; !ended && !failure; first += pagesAtOnce) {
      if (first > maxPages) {
        throw new IngestError('structure', `the list did not end after ${maxPages} pages: pagination changed`);
      }
      const pages = Array.from({ length: Math.min(pagesAtOnce, maxPages - first + 1) }, (_, i) => first + i);
      const results = await Promise.all(pages.map(readPage));
      for (const [i, rows] of results.entries()) {
        // No rows, or only rows already seen (a site that repeats its last page): the list has ended.
        if (take(rows) === 0) {
          ended = true;
          break;
        }
        progress.listPages = pages[i]!;
        progress.listed = listed.length;
        report();
      }
    }
  } catch (err) {
    fail(err);
  } finally {
    // The browser is done once the list is read; event pages are plain HTTP.
    await reader?.close();
  }
  await Promise.all(pending);
  options.signal?.removeEventListener('abort', onCancel);
  if (failure) throw asIngestError(failure);
  if (listed.length === 0) {
    const how = listPath === 'browser' ? 'neither as served nor as rendered by Chromium' : 'as served';
    throw new IngestError('structure', `no declarations on the first list page (${how}): the list changed or is empty`);
  }
  return { listPages: progress.listPages, listed, events, problems, warnings, listPath };
}

function asIngestError(err: unknown): unknown {
  if (err instanceof FetchError) {
    return new IngestError('network', `DisasterAssist could not be fetched: ${err.message}`);
  }
  return err;
}
