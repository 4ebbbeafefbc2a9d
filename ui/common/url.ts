/** `input` as a URL when it is an absolute http(s) URL; null for anything else (other schemes, relative, garbage). */
export function parseHttpUrl(input: string): URL | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
}

/** A declaration link is shown only for http(s) URLs: a `javascript:` URL from a bad record must never be clickable. */
export function safeHttpUrl(url: string | null): string | null {
  return url ? (parseHttpUrl(url)?.href ?? null) : null;
}
