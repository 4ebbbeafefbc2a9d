import { IngestError, type RecordProblem } from './errors';
import { parseEventPage, parseListPage, listPageUrl, type EventPage, type ListedDeclaration } from './disasterassist';
import { FetchError, type PoliteFetcher } from './fetcher';

export interface CrawlProgress {
  listPages: number;
  listed: number;
  eventPagesParsed: number;
}

export interface CrawlResult {
  listPages: number;
  listed: ListedDeclaration[];
  /** Event pages by AGRN of the list row that linked them. */
  events: Map<string, EventPage>;
  problems: RecordProblem[];
  warnings: string[];
}

export interface CrawlOptions {
  baseUrl: string;
  fetcher: PoliteFetcher;
  /** A site that never runs out of pages is a changed site, not 10,000 declarations. */
  maxPages?: number;
  onProgress?: (progress: CrawlProgress) => void;
  /** Cancels the crawl (server shutdown). */
  signal?: AbortSignal;
}

/**
 * Every declaration DisasterAssist lists: list pages ?page=1, 2, … until one has no new rows, and each row's event
 * page, fetched as soon as its row is read (the fetcher bounds how many run at once). Any network failure or list
 * page that changed aborts the whole crawl and cancels what is still queued; an event page that cannot be read is a
 * record problem, reported with its URL.
 */
export async function crawlDisasterAssist(options: CrawlOptions): Promise<CrawlResult> {
  const { baseUrl, fetcher, maxPages = 200 } = options;
  const origin = new URL(baseUrl).origin;
  const listed: ListedDeclaration[] = [];
  const byAgrn = new Map<string, ListedDeclaration>();
  const events = new Map<string, EventPage>();
  const problems: RecordProblem[] = [];
  const warnings: string[] = [];
  const pending: Promise<void>[] = [];
  const progress: CrawlProgress = { listPages: 0, listed: 0, eventPagesParsed: 0 };
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

  try {
    for (let page = 1; !failure; page++) {
      if (page > maxPages) throw new IngestError('structure', `the list did not end after ${maxPages} pages: pagination changed`);
      const url = listPageUrl(baseUrl, page);
      let html: string;
      try {
        html = await fetcher.text(url, { signal: abort.signal });
      } catch (err) {
        // Past the first page, "not found" is how some sites say the pages ran out.
        if (page > 1 && err instanceof FetchError && err.status === 404) break;
        if (!abort.signal.aborted) fail(err);
        break;
      }
      const rows = parseListPage(html, url, page);
      let fresh = 0;
      for (const row of rows) {
        const earlier = byAgrn.get(row.agrn);
        if (earlier) {
          if (earlier.url !== row.url) {
            warnings.push(`AGRN ${row.agrn} is listed twice with different event pages (${earlier.url}, ${row.url}); the first is used`);
          }
          continue;
        }
        fresh++;
        byAgrn.set(row.agrn, row);
        listed.push(row);
        pending.push(fetchEvent(row));
      }
      // No rows, or only rows already seen (a site that repeats its last page): the list has ended.
      if (fresh === 0) break;
      progress.listPages = page;
      progress.listed = listed.length;
      report();
    }
  } catch (err) {
    fail(err);
  }
  await Promise.all(pending);
  options.signal?.removeEventListener('abort', onCancel);
  if (failure) throw asIngestError(failure);
  if (listed.length === 0) throw new IngestError('structure', 'no declarations on the first list page: the list changed or is empty');
  return { listPages: progress.listPages, listed, events, problems, warnings };
}

function asIngestError(err: unknown): unknown {
  if (err instanceof FetchError) return new IngestError('network', `DisasterAssist could not be fetched: ${err.message}`);
  return err;
}
