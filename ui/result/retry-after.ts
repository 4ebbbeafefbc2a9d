/** When a 429 or 503 comes without a usable Retry-After. */
const DEFAULT_RETRY_SECONDS = 60;

/** Retry-After as seconds (delta form; an HTTP date is accepted too); undefined when the answer does not say. */
export function statedRetrySeconds(headers: Headers, now: number): number | undefined {
  const raw = headers.get('retry-after') ?? headers.get('x-ratelimit-reset');
  if (raw) {
    const seconds = Number(raw);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
    const date = Date.parse(raw);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  }
  return undefined;
}

/** Retry-After as seconds, or a minute when the answer does not say (how long to hold back before asking again). */
export function retryAfterSeconds(headers: Headers, now: number): number {
  return statedRetrySeconds(headers, now) ?? DEFAULT_RETRY_SECONDS;
}
