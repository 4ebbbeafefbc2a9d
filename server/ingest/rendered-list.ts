import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { CHROMIUM_MISSING, findChromium, HEADLESS_ARGS } from './chromium';
import { IngestError } from './errors';

/**
 * The call the list page's own script makes for its rows (SOURCES.md §1). We never make it ourselves — its payload
 * is undocumented — but its answer tells us the script has what it needs, including "nothing" past the last page.
 */
const DATA_CALL = /\/_layouts\/15\/api\/Data\.aspx\/FilterDisasters/i;

/** A row the script has filled: the list table's rows have six cells. */
const FILLED_ROW = 'table tbody tr:has(td:nth-child(6))';

/** After the data call answers, the script needs a moment to build the rows. */
const RENDER_GRACE_MS = 1_500;
/** Rows count unchanged over this long: the script has finished adding them. */
const SETTLE_MS = 250;

/** Nothing the reader needs: skipping them halves the load on the site and the time per page. */
const SKIPPED_RESOURCES = new Set(['image', 'media', 'font', 'stylesheet']);

export interface RenderedListOptions {
  /** CHROMIUM_PATH, when set. */
  executablePath?: string;
  userAgent: string;
  /** Per page, from navigation to rendered rows. */
  timeoutMs: number;
  /** Tries per page (a page that times out or answers 5xx is loaded again once by default). */
  attempts?: number;
  /** Cancels every page load and closes the browser (server shutdown, SIGTERM of `npm run ingest`). */
  signal?: AbortSignal;
}

export interface RenderedListReader {
  /** The list page's HTML after its own script has filled the table (or found nothing to fill it with). */
  render(url: string): Promise<string>;
  /** Closes the browser; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * One headless Chromium for one refresh. It loads each list page like a visitor's browser would, lets the page's
 * own script fetch and draw the rows, and hands back the rendered HTML for the same parser the served pages go
 * through. A browser that cannot start, crashes or times out fails the refresh with an IngestError ('browser'),
 * never the process.
 */
export async function launchRenderedListReader(options: RenderedListOptions): Promise<RenderedListReader> {
  const executablePath = findChromium(options.executablePath);
  if (!executablePath) {
    throw new IngestError(
      'browser',
      options.executablePath
        ? `CHROMIUM_PATH ${options.executablePath} does not exist. ${CHROMIUM_MISSING}`
        : CHROMIUM_MISSING,
    );
  }
  // Loaded only when a list page needs it: the server never pays for playwright-core otherwise.
  const { chromium } = await import('playwright-core');
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath,
      headless: true,
      args: [...HEADLESS_ARGS],
      timeout: options.timeoutMs,
      // The server and the CLI close the browser themselves when they stop; playwright's own signal handlers
      // would exit the process in the middle of the server's graceful drain.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (err) {
    throw new IngestError('browser', `Chromium (${executablePath}) could not be started: ${firstLine(err)}`);
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    options.signal?.removeEventListener('abort', onAbort);
    await browser.close().catch(() => undefined);
  };
  const onAbort = () => void close();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) await close();

  let context: BrowserContext;
  try {
    context = await browser.newContext({
      userAgent: options.userAgent,
      locale: 'en-AU',
      timezoneId: 'Australia/Sydney',
      javaScriptEnabled: true,
    });
    await context.route('**/*', (route: Route) =>
      SKIPPED_RESOURCES.has(route.request().resourceType()) ? route.abort() : route.continue(),
    );
  } catch (err) {
    await close();
    throw new IngestError('browser', `Chromium could not open a page: ${firstLine(err)}`);
  }

  const attempts = Math.max(1, options.attempts ?? 2);
  const render = async (url: string): Promise<string> => {
    for (let attempt = 1; ; attempt++) {
      if (closed) throw new IngestError('browser', 'the browser was closed (refresh cancelled or Chromium crashed)');
      try {
        return await renderOnce(context, url, options.timeoutMs);
      } catch (err) {
        if (closed || !browser.isConnected()) {
          throw new IngestError('browser', `Chromium stopped while loading ${url}: ${firstLine(err)}`);
        }
        const retryable = !(err instanceof IngestError) || err.kind === 'network';
        if (!retryable || attempt >= attempts) {
          throw err instanceof IngestError
            ? err
            : new IngestError('browser', `${url} did not render in Chromium: ${firstLine(err)}`);
        }
      }
    }
  };
  return { render, close };
}

async function renderOnce(context: BrowserContext, url: string, timeoutMs: number): Promise<string> {
  const page = await context.newPage();
  try {
    const deadline = Date.now() + timeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    // Listening before navigating: the call can answer before `goto` returns.
    const dataAnswered = page.waitForResponse((r) => DATA_CALL.test(r.url()), { timeout: timeoutMs });
    dataAnswered.catch(() => undefined);
    const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: timeoutMs });
    const status = response?.status() ?? 0;
    if (status >= 400) throw new IngestError('network', `${url} answered HTTP ${status} in Chromium`);
    // Done when rows are drawn, or the data call has answered and the script had time to draw, or the page has
    // gone quiet (a page whose script never calls out). Whichever comes first; all bounded by the page timeout.
    await Promise.any([
      page.waitForSelector(FILLED_ROW, { state: 'attached', timeout: left() }),
      dataAnswered.then(async (r) => {
        if (r.status() >= 400) throw new IngestError('network', `the list's data call answered HTTP ${r.status()}`);
        await page
          .waitForSelector(FILLED_ROW, { state: 'attached', timeout: Math.min(RENDER_GRACE_MS, left()) })
          .catch(() => undefined);
      }),
      page.waitForLoadState('networkidle', { timeout: left() }),
    ]).catch((err: unknown) => {
      const reasons = err instanceof AggregateError ? err.errors : [err];
      const known = reasons.find((e): e is IngestError => e instanceof IngestError);
      throw known ?? new IngestError('network', `${url} did not finish rendering within ${timeoutMs} ms`);
    });
    await untilRowCountSettles(page, deadline);
    return await page.content();
  } finally {
    await page.close().catch(() => undefined);
  }
}

/** A script may add rows in several steps: read once the count has stopped changing (bounded by the deadline). */
async function untilRowCountSettles(page: Page, deadline: number): Promise<void> {
  let last = -1;
  while (Date.now() < deadline) {
    const count = await page.locator(FILLED_ROW).count();
    if (count === last) return;
    last = count;
    await page.waitForTimeout(SETTLE_MS);
  }
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.trim();
}
