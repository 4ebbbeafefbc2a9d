/**
 * A small HTTP client with a real cookie jar, as a browser would keep it: cookies are stored from Set-Cookie with
 * their Path, dropped when they expire or are cleared (Max-Age=0 / past Expires), and sent only to matching paths.
 * Every request carries the server's own Origin unless told otherwise, as a browser page on the server would.
 */
export interface StoredCookie {
  name: string;
  value: string;
  path: string;
  expiresAt: number | null;
  attributes: Record<string, string | true>;
}

export function parseSetCookie(header: string): StoredCookie {
  const [pair, ...attrs] = header.split(';');
  const eq = pair!.indexOf('=');
  const name = pair!.slice(0, eq).trim();
  const value = pair!.slice(eq + 1).trim();
  const attributes: Record<string, string | true> = {};
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase();
    attributes[key] = i < 0 ? true : attr.slice(i + 1).trim();
  }
  let expiresAt: number | null = null;
  if (typeof attributes['max-age'] === 'string') expiresAt = Date.now() + Number(attributes['max-age']) * 1000;
  else if (typeof attributes.expires === 'string') expiresAt = Date.parse(attributes.expires);
  const path = typeof attributes.path === 'string' ? attributes.path : '/';
  return { name, value, path, expiresAt, attributes };
}

export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  store(response: Response): StoredCookie[] {
    const set = response.headers.getSetCookie().map(parseSetCookie);
    for (const cookie of set) {
      const id = `${cookie.name};${cookie.path}`;
      if (cookie.expiresAt !== null && cookie.expiresAt <= Date.now()) this.cookies.delete(id);
      else this.cookies.set(id, cookie);
    }
    return set;
  }

  headerFor(path: string): string | undefined {
    const now = Date.now();
    const matching = [...this.cookies.values()].filter(
      (c) =>
        (c.expiresAt === null || c.expiresAt > now) &&
        (path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
    );
    return matching.length > 0 ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  get(name: string): StoredCookie | undefined {
    return [...this.cookies.values()].find((c) => c.name === name);
  }

  set(cookie: StoredCookie): void {
    this.cookies.set(`${cookie.name};${cookie.path}`, cookie);
  }

  clear(): void {
    this.cookies.clear();
  }

  get size(): number {
    return this.cookies.size;
  }
}

export interface RequestOptions {
  body?: unknown;
  /** Origin header: the server's own by default; null sends none. */
  origin?: string | null;
  headers?: Record<string, string>;
}

export class SessionClient {
  /** `jar`: another client's, for the same browser at another instance behind one public address. */
  constructor(
    readonly baseUrl: string,
    readonly jar = new CookieJar(),
  ) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    const origin = options.origin === undefined ? new URL(this.baseUrl).origin : options.origin;
    if (origin !== null) headers.origin = origin;
    const cookie = this.jar.headerFor(path);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' });
    this.jar.store(response);
    // Like a browser, wait for the whole response: the server finishes its session write before the last byte.
    await response.clone().arrayBuffer();
    return response;
  }

  get(path: string, options?: RequestOptions): Promise<Response> {
    return this.request('GET', path, options);
  }

  post(path: string, options?: RequestOptions): Promise<Response> {
    return this.request('POST', path, options);
  }

  login(email: string, password: string, options: Omit<RequestOptions, 'body'> = {}): Promise<Response> {
    return this.post('/api/v1/auth/login', { ...options, body: { email, password } });
  }

  /** The session cookie's value, or undefined when the jar has none. */
  get sessionCookie(): string | undefined {
    return this.jar.get('dte.sid')?.value;
  }
}

export async function json<T = any>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
