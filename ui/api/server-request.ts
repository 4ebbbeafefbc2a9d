/**
 * The `fetch` to use (passed in, so tests give a fake): the extension's service worker's, the only part of the extension
 * that talks to the server, or the console page's.
 */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export const REQUEST_TIMEOUT_MS = 10_000;
/** Statuses a proxy answers with, without the API's envelope, when the server behind it is down. */
export const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** A text answer (the catchment's CSV) as text; an error's JSON envelope as JSON. */
async function readText(response: Response): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch {
    return undefined;
  }
  if (response.ok) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isNetworkError(error: unknown): boolean {
  return (
    error instanceof TypeError ||
    (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError'))
  );
}

/**
 * Whether the server answered a redirect, which is never followed (see sendRequest): a browser's `fetch` hands back an
 * opaque redirect (status 0), Node's the 3xx itself.
 */
export function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

/**
 * One request to the eligibility server, for the check and the account endpoints alike: the shared timeout, no HTTP
 * cache, no redirect followed (every call carries a credential: the API key, the session cookie or a password, and a
 * browser re-sends a 307's body and keeps a custom header on the way to whatever host the redirect names; see
 * isRedirect), its body read as JSON when it is JSON. Null when the server could not be reached (network error or
 * timeout); any other exception is a bug and is thrown. `read: 'text'` reads a successful answer as text.
 */
export async function sendRequest(
  fetchFn: Fetch,
  url: string,
  init: RequestInit,
  read: 'json' | 'text' = 'json',
): Promise<{ response: Response; body: unknown } | null> {
  let response: Response;
  try {
    response = await fetchFn(url, {
      ...init,
      cache: 'no-store',
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    if (isNetworkError(error)) return null;
    throw error;
  }
  if (isRedirect(response)) return { response, body: undefined };
  return { response, body: read === 'text' ? await readText(response) : await readJson(response) };
}
