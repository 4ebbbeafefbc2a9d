import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Page } from 'playwright-core';

/** What a test person's ID token says of them. */
export interface IdpUser {
  email?: string;
  email_verified?: boolean;
  /** Microsoft's directory (tenant) ID. */
  tid?: string;
  /** Google's Workspace domain. */
  hd?: string;
  /** Entra ID's optional claim: the e-mail's domain is one the tenant verified. */
  xms_edov?: boolean;
}

export interface TestIdp {
  /** The issuer, with its path (`http://127.0.0.1:PORT/{tenant}/v2.0` for a Microsoft stand-in). */
  readonly issuer: string;
  /** The accounts, by the login typed on the provider's sign-in form. */
  readonly users: Map<string, IdpUser>;
  /** How many times a client asked the token endpoint to redeem a code, so far. */
  readonly tokenRequests: number;
  /** Registers a client (dynamic registration: the provider's own endpoint), with the ID and secret given. */
  register(client: { clientId: string; clientSecret: string; redirectUri: string }): Promise<void>;
  /** Stops answering (connections refused), keeping the provider for start() on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface TestIdpOptions {
  /** Where the issuer lives on the server: '' or `/{tenant}/v2.0` (Microsoft's form). */
  mountPath?: string;
  /** The ID token's lifetime in seconds (default the provider's, an hour). */
  idTokenTtlSeconds?: number;
  /** The port to listen on (0: any). */
  port?: number;
}

/**
 * A real OpenID Provider on loopback: panva's oidc-provider (certified), its own authorization, token, JWKS and
 * registration endpoints and its development sign-in form, in this process. Each test file starts the few it needs
 * and registers a client per test server (its redirect URI); `users` says who may sign in and with which claims.
 */
export async function startOidcIdp(options: TestIdpOptions = {}): Promise<TestIdp> {
  const mountPath = options.mountPath ?? '';
  const users = new Map<string, IdpUser>();
  let pending: { clientId: string; clientSecret: string } | undefined;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const server = http.createServer();
  await listen(server, options.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}${mountPath}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    // The ID token carries the person's claims (email, tid, hd) whatever the response type, as Microsoft's and
    // Google's do.
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['tid', 'hd', 'xms_edov'] },
    features: {
      devInteractions: { enabled: true },
      registration: {
        enabled: true,
        idFactory: () => pending!.clientId,
        secretFactory: async () => pending!.clientSecret,
      },
    },
    // Each lifetime said (the provider notices a default one on stdout); an hour unless the test shortens the ID token's.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: options.idTokenTtlSeconds ?? 3600 },
    async findAccount(_ctx, id) {
      const user = users.get(id);
      if (!user) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...user }) };
    },
  });
  const callback = provider.callback();
  let tokenRequests = 0;
  server.on('request', (req: http.IncomingMessage & { originalUrl?: string }, res) => {
    const url = req.url ?? '/';
    if (req.method === 'POST' && url.startsWith(`${mountPath}/token`)) tokenRequests++;
    if (mountPath && !url.startsWith(`${mountPath}/`)) {
      res.statusCode = 404;
      return void res.end();
    }
    // As a mounting router does: the provider finds its mount path from originalUrl.
    req.originalUrl = url;
    req.url = url.slice(mountPath.length);
    void callback(req, res);
  });

  let listening = true;
  const stop = async () => {
    if (!listening) return;
    listening = false;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    issuer,
    users,
    get tokenRequests() {
      return tokenRequests;
    },
    async register({ clientId, clientSecret, redirectUri }) {
      pending = { clientId, clientSecret };
      const response = await fetch(`${issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: 'client_secret_post',
          grant_types: ['authorization_code'],
          response_types: ['code'],
        }),
      });
      if (response.status !== 201) throw new Error(`registration refused: ${await response.text()}`);
    },
    stop,
    async start() {
      if (listening) return;
      await listen(server, port);
      listening = true;
    },
    close: stop,
  };
}

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Cookies by name, sent to the provider whatever their path (one provider per jar). */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * A person signing in at the provider as a browser would: from the authorization URL our start redirected to,
 * following the provider's redirects by hand with a cookie jar, typing `login` into its sign-in form and confirming
 * its consent form, until the provider sends the browser to somewhere else (our callback). Returns that URL,
 * unfollowed: the test calls it on whichever instance it means to.
 */
export async function signInAtIdp(authorizationUrl: string, login: string, action: 'login' | 'abort' = 'login') {
  const jar = new CookieJar();
  const idpOrigin = new URL(authorizationUrl).origin;
  let next: { url: string; init?: RequestInit } = { url: authorizationUrl };
  for (let step = 0; step < 20; step++) {
    const response = await fetch(next.url, {
      ...next.init,
      redirect: 'manual',
      headers: { ...(next.init?.headers as Record<string, string>), cookie: jar.header() },
    });
    jar.take(response);
    const location = response.headers.get('location');
    if (location) {
      const target = new URL(location, next.url);
      if (target.origin !== idpOrigin) return target.href;
      next = { url: target.href };
      continue;
    }
    const page = await response.text();
    if (response.status !== 200) throw new Error(`the provider answered ${response.status}: ${page.slice(0, 500)}`);
    if (action === 'abort') {
      const abort = /href="([^"]*\/abort)"/.exec(page)?.[1];
      if (!abort) throw new Error('no abort link on the provider page');
      next = { url: new URL(abort, next.url).href };
      continue;
    }
    next = { url: new URL(formAction(page), next.url).href, init: formPost(page, login) };
  }
  throw new Error('the provider never sent the browser back');
}

function formAction(page: string): string {
  const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
  if (!action) throw new Error(`no form on the provider page: ${page.slice(0, 500)}`);
  return action.replaceAll('&amp;', '&');
}

/** The form's hidden fields, and the login typed in when it asks for one. */
function formPost(page: string, login: string): RequestInit {
  const form = new URLSearchParams();
  for (const [, name, value] of page.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
    form.set(name!, value!);
  }
  if (/name="login"/.test(page)) {
    form.set('login', login);
    form.set('password', 'any');
  }
  return {
    method: 'POST',
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

/**
 * A person at the provider's own pages in a real browser: types `login` (and any password) into its sign-in form, then
 * confirms its consent form; the provider then sends the browser back to our callback.
 */
export async function signInAtIdpPage(page: Page, login: string): Promise<void> {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}
