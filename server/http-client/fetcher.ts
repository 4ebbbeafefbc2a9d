import pLimit, { type LimitFunction } from 'p-limit';

/** Identifies the ingest like a normal browser (DisasterAssist has answered 403 to bare clients) plus who runs it. */
export function ingestUserAgent(contact?: string): string {
  const who = contact?.trim() ? `; +${contact.trim()}` : '';
  return (
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 ' +
    `(compatible; disaster-telehealth-eligibility-ingest/0.1; daily refresh${who})`
  );
}

export interface FetcherOptions {
  /** Requests in flight at once, over every URL this fetcher serves. */
  concurrency?: number;
  /** Retries after the first attempt, on network errors, timeouts, 5xx, 429, 408 and 403. */
  retries?: number;
  /** Per attempt, headers and body together. */
  timeoutMs?: number;
  /** Back-off before retry n (from 0) is up to retryBaseMs·2ⁿ, capped at retryMaxMs, with jitter. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  userAgent?: string;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** 0 ≤ random() < 1, for the jitter. */
  random?: () => number;
  onRetry?: (info: { url: string; attempt: number; delayMs: number; reason: string }) => void;
}

export const DEFAULT_FETCHER_OPTIONS = {
  concurrency: 4,
  retries: 4,
  timeoutMs: 30_000,
  retryBaseMs: 1_000,
  retryMaxMs: 30_000,
} as const;

/** A request that failed for good: after the retries, or at once for an answer retrying cannot change (404). */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly status: number | null,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

const RETRYABLE_STATUS = new Set([403, 408, 425, 429, 500, 502, 503, 504]);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * HTTP GET the polite way: a bounded number of requests in flight, a timeout on each attempt, retries with
 * exponential back-off and jitter (honouring Retry-After), and a real User-Agent.
 */
export class PoliteFetcher {
  private readonly limit: LimitFunction;
  private readonly options: Required<Omit<FetcherOptions, 'onRetry'>> & Pick<FetcherOptions, 'onRetry'>;
  /** Requests made, attempts included: the benchmark and the tests read it. */
  requests = 0;

  constructor(options: FetcherOptions = {}) {
    this.options = {
      ...DEFAULT_FETCHER_OPTIONS,
      userAgent: ingestUserAgent(),
      fetch: globalThis.fetch,
      sleep: defaultSleep,
      random: Math.random,
      ...stripUndefined(options),
    };
    this.limit = pLimit(Math.max(1, this.options.concurrency));
  }

  /** Who the requests say they come from; the list's browser introduces itself the same way. */
  get userAgent(): string {
    return this.options.userAgent;
  }

  /** The body of `url` as text. Throws FetchError when it cannot be had. */
  text(url: string, options: { accept?: string; signal?: AbortSignal } = {}): Promise<string> {
    const accept = options.accept ?? 'text/html,application/xhtml+xml,text/csv;q=0.9,*/*;q=0.8';
    return this.limit(() => this.withRetries(url, accept, options.signal));
  }

  /** The back-off before retry `attempt` (0-based): half fixed, half random, so clients do not retry in step. */
  backoffMs(attempt: number, retryAfterMs: number | null = null): number {
    const { retryBaseMs, retryMaxMs, random } = this.options;
    const ceiling = Math.min(retryMaxMs, retryBaseMs * 2 ** attempt);
    const jittered = ceiling / 2 + random() * (ceiling / 2);
    return retryAfterMs === null ? jittered : Math.min(retryMaxMs, Math.max(jittered, retryAfterMs));
  }

  private async withRetries(url: string, accept: string, signal?: AbortSignal): Promise<string> {
    const { retries } = this.options;
    for (let attempt = 0; ; attempt++) {
      // A caller that has given up (another page failed) frees the slot without touching the site again.
      signal?.throwIfAborted();
      const outcome = await this.attempt(url, accept, signal);
      if (outcome.ok) return outcome.text;
      if (!outcome.retryable || attempt >= retries) {
        throw new FetchError(
          `${url}: ${outcome.reason}${attempt > 0 ? ` (after ${attempt + 1} attempts)` : ''}`,
          url,
          outcome.status,
          attempt + 1,
        );
      }
      const delayMs = this.backoffMs(attempt, outcome.retryAfterMs);
      this.options.onRetry?.({ url, attempt: attempt + 1, delayMs, reason: outcome.reason });
      await this.options.sleep(delayMs);
    }
  }

  private async attempt(
    url: string,
    accept: string,
    signal?: AbortSignal,
  ): Promise<
    | { ok: true; text: string }
    | { ok: false; retryable: boolean; reason: string; status: number | null; retryAfterMs: number | null }
  > {
    this.requests++;
    // One controller per attempt, aborted by our own timer or by the caller's signal. Not AbortSignal.timeout() nor
    // AbortSignal.any(): fetch holds the signal it is given only weakly, so a garbage collection between the request
    // and its timeout could drop a signal nothing else holds, and a request to a server that never answers then
    // hung for good (seen under load: "no answer within 400 ms" took 30 s). The timer and the listener hold this one.
    const attempt = new AbortController();
    const timer = setTimeout(
      () => attempt.abort(new DOMException(`no answer within ${this.options.timeoutMs} ms`, 'TimeoutError')),
      this.options.timeoutMs,
    );
    const followCaller = () => attempt.abort(signal?.reason);
    signal?.addEventListener('abort', followCaller, { once: true });
    try {
      const res = await this.options.fetch(url, {
        headers: { 'user-agent': this.options.userAgent, accept, 'accept-language': 'en-AU,en;q=0.9' },
        redirect: 'follow',
        signal: attempt.signal,
      });
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        return {
          ok: false,
          retryable: RETRYABLE_STATUS.has(res.status),
          reason: `HTTP ${res.status}`,
          status: res.status,
          retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
        };
      }
      return { ok: true, text: await res.text() };
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const reason =
        e.name === 'TimeoutError' || e.name === 'AbortError'
          ? `no answer within ${this.options.timeoutMs} ms`
          : `network error: ${e.cause?.code ?? e.cause?.message ?? e.message}`;
      return { ok: false, retryable: true, reason, status: null, retryAfterMs: null };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', followCaller);
    }
  }
}

function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  if (/^[0-9]+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
