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
  const run = new CrawlRun(options);
  if (options.signal?.aborted) throw new IngestError('internal', 'refresh cancelled');
  const onCancel = () => run.fail(new IngestError('internal', 'refresh cancelled'));
  options.signal?.addEventListener('abort', onCancel, { once: true });
  let listPath: ListPath = 'html';
  let reader: ListReader | null = null;
  try {
    reader = await openListReader(options, run.abort.signal);
    listPath = reader.path;
    run.progress.listPath = listPath;
    await readListPages(run, reader, options.maxPages ?? 200);
  } catch (err) {
    run.fail(err);
  } finally {
    // The browser is done once the list is read; event pages are plain HTTP.
    await reader?.close();
  }
  await run.eventPagesDone();
  options.signal?.removeEventListener('abort', onCancel);
  if (run.failure) throw asIngestError(run.failure);
  if (run.listed.length === 0) {
    const how = listPath === 'browser' ? 'neither as served nor as rendered by Chromium' : 'as served';
    throw new IngestError('structure', `no declarations on the first list page (${how}): the list changed or is empty`);
  }
  const { listed, events, problems, warnings } = run;
  return { listPages: run.progress.listPages, listed, events, problems, warnings, listPath };
}

/** How the list pages are read, as page 1 decided. */
interface ListReader {
  path: ListPath;
  /** List pages read at once. */
  pagesAtOnce: number;
  readPage(page: number): Promise<ListedDeclaration[]>;
  close(): Promise<void>;
}

/** Reads page 1 as served; when it has no rows, launches the Chromium every page is then rendered in. */
async function openListReader(options: CrawlOptions, signal: AbortSignal): Promise<ListReader> {
  const { baseUrl, fetcher } = options;
  const browserOptions = { ...DEFAULT_BROWSER_OPTIONS, ...options.browser };
  const firstUrl = listPageUrl(baseUrl, 1);
  const served = parseListPage(await fetcher.text(firstUrl, { signal }), firstUrl, 1, { missingTable: 'empty' });
  if (served.length > 0) {
    return {
      path: 'html',
      pagesAtOnce: 1,
      readPage: async (page) => {
        if (page === 1) return served;
        const url = listPageUrl(baseUrl, page);
        try {
          return parseListPage(await fetcher.text(url, { signal }), url, page);
        } catch (err) {
          // Past the first page, "not found" is how some sites say the pages ran out.
          if (err instanceof FetchError && err.status === 404) return [];
          throw err;
        }
      },
      close: async () => undefined,
    };
  }
  const browser = await (browserOptions.launch ?? launchRenderedListReader)({
    executablePath: browserOptions.executablePath,
    userAgent: fetcher.userAgent,
    timeoutMs: browserOptions.timeoutMs,
    attempts: browserOptions.attempts,
    signal,
  });
  return {
    path: 'browser',
    pagesAtOnce: Math.max(1, browserOptions.pagesAtOnce),
    readPage: async (page) => {
      const url = listPageUrl(baseUrl, page);
      return parseListPage(await browser.render(url), url, page, { missingTable: 'empty' });
    },
    close: () => browser.close(),
  };
}

/** List pages, `pagesAtOnce` at a time, until one adds no new row or the crawl has failed. */
async function readListPages(run: CrawlRun, reader: ListReader, maxPages: number): Promise<void> {
  let ended = false;
  for (let first = 1; !ended && !run.failure; first += reader.pagesAtOnce) {
    if (first > maxPages) {
      throw new IngestError('structure', `the list did not end after ${maxPages} pages: pagination changed`);
    }
    const pages = Array.from({ length: Math.min(reader.pagesAtOnce, maxPages - first + 1) }, (_, i) => first + i);
    const results = await Promise.all(pages.map((page) => reader.readPage(page)));
    for (const [i, rows] of results.entries()) {
      // No rows, or only rows already seen (a site that repeats its last page): the list has ended.
      if (run.take(rows) === 0) {
        ended = true;
        break;
      }
      run.listPageRead(pages[i]!);
    }
  }
}

/**
 * What one crawl has gathered, and how it stops: the first failure is kept and aborts every request still queued.
 * Each new row's event page is fetched as soon as the row is taken.
 */
class CrawlRun {
  readonly listed: ListedDeclaration[] = [];
  /** Event pages by AGRN of the list row that linked them. */
  readonly events = new Map<string, EventPage>();
  readonly problems: RecordProblem[] = [];
  readonly warnings: string[] = [];
  readonly progress: CrawlProgress = { listPages: 0, listed: 0, eventPagesParsed: 0, listPath: null };
  readonly abort = new AbortController();
  failure: unknown = null;
  private readonly byAgrn = new Map<string, ListedDeclaration>();
  private readonly pending: Promise<void>[] = [];
  private readonly origin: string;

  constructor(private readonly options: CrawlOptions) {
    this.origin = new URL(options.baseUrl).origin;
  }

  fail(err: unknown): void {
    this.failure ??= err;
    this.abort.abort(err);
  }

  /** Adds a page's rows; how many were new (0: the list has ended, or repeats its last page). */
  take(rows: ListedDeclaration[]): number {
    let fresh = 0;
    for (const row of rows) {
      const earlier = this.byAgrn.get(row.agrn);
      if (earlier) {
        if (earlier.url !== row.url) {
          this.warnings.push(
            `AGRN ${row.agrn} is listed twice with different event pages (${earlier.url}, ${row.url}); the first is used`,
          );
        }
        continue;
      }
      fresh++;
      this.byAgrn.set(row.agrn, row);
      this.listed.push(row);
      this.pending.push(this.fetchEvent(row));
    }
    return fresh;
  }

  listPageRead(page: number): void {
    this.progress.listPages = page;
    this.progress.listed = this.listed.length;
    this.report();
  }

  async eventPagesDone(): Promise<void> {
    await Promise.all(this.pending);
  }

  private report(): void {
    this.options.onProgress?.({ ...this.progress });
  }

  private async fetchEvent(row: ListedDeclaration): Promise<void> {
    const { origin, problems } = this;
    if (new URL(row.url).origin !== origin) {
      problems.push({ agrn: row.agrn, url: row.url, reason: `event page is not on ${origin}; not fetched` });
      return;
    }
    try {
      const html = await this.options.fetcher.text(row.url, { signal: this.abort.signal });
      this.events.set(row.agrn, parseEventPage(html, row.url));
    } catch (err) {
      if (this.abort.signal.aborted) return;
      if (err instanceof IngestError) problems.push({ agrn: row.agrn, url: row.url, reason: err.message });
      else if (err instanceof FetchError && (err.status === 404 || err.status === 410)) {
        problems.push({ agrn: row.agrn, url: row.url, reason: `event page answered HTTP ${err.status}` });
      } else {
        this.fail(err);
        return;
      }
    }
    this.progress.eventPagesParsed++;
    this.report();
  }
}

function asIngestError(err: unknown): unknown {
  if (err instanceof FetchError) {
    return new IngestError('network', `DisasterAssist could not be fetched: ${err.message}`);
  }
  return err;
}
