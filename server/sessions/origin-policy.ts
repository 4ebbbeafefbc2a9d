import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import { ContractError } from '../contract-error';
import { carriesCookie } from './session-cookie';

/**
 * The origins the extension's own builds have: Chrome (and Edge, Brave…), whose id is 32 letters a–p, and Firefox,
 * whose origin is a UUID chosen afresh for every install.
 */
const OWN_BUILD_ORIGIN = /^(chrome-extension:\/\/[a-p]{32}|moz-extension:\/\/[0-9a-f-]{36})$/;
/** What EXTENSION_ORIGINS may list: Chromium, Firefox and Safari extension origins. */
const ANY_EXTENSION_ORIGIN =
  /^(chrome-extension:\/\/[a-p]{32}|moz-extension:\/\/[0-9a-f-]{36}|safari-web-extension:\/\/[0-9A-Za-z-]{1,64})$/;

export function isExtensionOriginSyntax(origin: string): boolean {
  return ANY_EXTENSION_ORIGIN.test(origin);
}

/**
 * EXTENSION_ORIGINS: a comma-separated list; empty means "any Chrome or Firefox extension". Throws on a malformed entry.
 */
export function parseExtensionOrigins(value: string | undefined): string[] {
  const origins = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = origins.filter((o) => !isExtensionOriginSyntax(o));
  if (bad.length > 0) {
    throw new Error(`not an extension origin: ${bad.join(', ')} (expected e.g. chrome-extension://<32 letters a-p>)`);
  }
  return origins;
}

/**
 * PUBLIC_URL: one or more comma-separated http(s) URLs, each reduced to its origin (scheme, host, port: the path is
 * irrelevant to an Origin header). Throws on anything that is not an http(s) URL, or on an empty list.
 */
export function parsePublicUrls(value: string): string[] {
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('must list at least one origin, e.g. https://dte.clinic.example');
  const bad = entries.filter((e) => normalisedWebOrigin(e) === undefined);
  if (bad.length > 0) {
    throw new Error(`not an http(s) URL: ${bad.join(', ')} (expected e.g. https://dte.clinic.example)`);
  }
  return [...new Set(entries.map((e) => normalisedWebOrigin(e)!))];
}

/** The origin of an http(s) URL (lower-case host, default port dropped); undefined for anything else. */
function normalisedWebOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url.origin : undefined;
}

/** Addresses that mean "every interface": nobody browses to them, so they name no origin. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

export interface OriginPolicyOptions {
  /** EXTENSION_ORIGINS; empty = any Chrome extension. */
  extensionOrigins?: readonly string[];
  /** PUBLIC_URL, as parsed: the origins browsers reach this service at. Unset = the origins it listens on. */
  publicOrigins?: readonly string[];
  /** HOST, for the default when PUBLIC_URL is unset. */
  listenHost?: string;
}

/**
 * Which origins may drive the cookie-authenticated endpoints: the server's own origin and the extension's.
 *
 * "The server's own origin" comes from configuration, never from the request: the Host header is the client's to
 * write, so `Origin: http://evil.example` with `Host: evil.example` must not count as same-origin. It is PUBLIC_URL
 * when set (required in production). Without it (development, tests) it is where the server listens:
 * http://127.0.0.1, http://localhost and http://HOST at the port the connection was accepted on — the socket's
 * own port, which the client cannot choose, and which is right even when PORT=0 picked one at random.
 *
 * The extension's id is not known in advance (an unpacked install's id depends on its folder, a store install's on
 * the store; Firefox gives every install a random UUID), so by default any Chrome or Firefox extension origin is
 * allowed. That admits no website: the threat the Origin check answers is a web page making a signed-in browser call
 * the API, and a web page cannot send a chrome-extension:// or moz-extension:// Origin. An operator who knows the id
 * narrows it with EXTENSION_ORIGINS.
 */
export class OriginPolicy {
  private readonly listed: ReadonlySet<string> | undefined;
  private readonly configured: ReadonlySet<string> | undefined;
  private readonly listenHost: string | undefined;
  /** The development default's origins, per local port (one or two ports in practice). */
  private readonly byPort = new Map<number, ReadonlySet<string>>();

  constructor(options: OriginPolicyOptions = {}) {
    const extensionOrigins = options.extensionOrigins ?? [];
    this.listed = extensionOrigins.length > 0 ? new Set(extensionOrigins) : undefined;
    this.configured =
      options.publicOrigins && options.publicOrigins.length > 0 ? new Set(options.publicOrigins) : undefined;
    this.listenHost = options.listenHost;
  }

  isExtensionOrigin(origin: string | undefined): boolean {
    if (!origin) return false;
    return this.listed ? this.listed.has(origin) : OWN_BUILD_ORIGIN.test(origin);
  }

  /** The web origins this request may come from: PUBLIC_URL, or the origins of the address it was accepted on. */
  ownOrigins(req: Request): ReadonlySet<string> {
    if (this.configured) return this.configured;
    const port = req.socket.localPort;
    if (port === undefined) return new Set();
    let origins = this.byPort.get(port);
    if (!origins) {
      const hosts = ['127.0.0.1', 'localhost', '[::1]'];
      const host = this.listenHost?.trim();
      if (host && !WILDCARD_HOSTS.has(host)) {
        hosts.push(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
      }
      origins = new Set(
        hosts.map((h) => normalisedWebOrigin(`http://${h}:${port}`)).filter((o): o is string => o !== undefined),
      );
      this.byPort.set(port, origins);
    }
    return origins;
  }

  /**
   * The origin that links sent to people (invitations, password resets) point at. PUBLIC_URL's first entry when set:
   * the link is opened by someone else, maybe elsewhere, so it names the canonical address. Otherwise the origin of
   * the page that asked when it is one of this server's own (a console at http://localhost:3000 gets localhost
   * links), else the first of them (http://127.0.0.1:PORT). Never the Host header: a client could point the link at
   * any site it liked.
   */
  linkOrigin(req: Request): string {
    const own = this.ownOrigins(req);
    const first = own.values().next().value;
    if (this.configured || first === undefined) return first ?? 'http://127.0.0.1';
    const origin = req.headers.origin;
    const normalised = origin === undefined ? undefined : normalisedWebOrigin(origin);
    return normalised !== undefined && own.has(normalised) ? normalised : first;
  }

  isAllowed(origin: string, req: Request): boolean {
    if (this.isExtensionOrigin(origin)) return true;
    // Opaque origins ("null") and anything that is not an http(s) origin never match.
    const normalised = normalisedWebOrigin(origin);
    return normalised !== undefined && this.ownOrigins(req).has(normalised);
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses (403 forbidden_origin) a state-changing request that carries the session cookie and comes from a page
 * whose origin is neither the server's own nor the extension's. Requests without the session cookie are not
 * cookie-authenticated and pass untouched (a PMS or curl calling login, say).
 *
 * Without an Origin header: browsers send Origin with every POST, so a request without one is not from a web page
 * — unless the Fetch Metadata header says it is cross-site, in which case it is refused too.
 */
export function originGuard(policy: OriginPolicy, cookieName: string): RequestHandler {
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method) || !carriesCookie(req, cookieName)) return next();
    const origin = req.headers.origin;
    if (origin === undefined) {
      const site = req.headers['sec-fetch-site'];
      if (site === 'cross-site' || site === 'same-site') return next(new ContractError('forbidden_origin'));
      return next();
    }
    if (!policy.isAllowed(origin, req)) return next(new ContractError('forbidden_origin'));
    next();
  };
}

/**
 * CORS for the extension's pages, with credentials (the session cookie), and for nobody else: other origins get no
 * Access-Control-Allow-* headers, so a browser keeps the answers from them. Same-origin requests need none.
 */
export function extensionCors(policy: OriginPolicy): RequestHandler {
  return cors({
    origin: (origin, callback) => callback(null, policy.isExtensionOrigin(origin)),
    credentials: true,
    methods: ['GET', 'POST'],
    allowedHeaders: ['Content-Type'],
    maxAge: 600,
  });
}
