import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import { AppError } from '../http/app-error';
import { carriesCookie } from './session-cookie';

/** A Chrome (and Edge, Brave…) extension's origin: the id is 32 letters a–p. */
const CHROME_EXTENSION_ORIGIN = /^chrome-extension:\/\/[a-p]{32}$/;
/** What EXTENSION_ORIGINS may list: Chromium, Firefox and Safari extension origins. */
const ANY_EXTENSION_ORIGIN = /^(chrome-extension:\/\/[a-p]{32}|moz-extension:\/\/[0-9a-f-]{36}|safari-web-extension:\/\/[0-9A-Za-z-]{1,64})$/;

export function isExtensionOriginSyntax(origin: string): boolean {
  return ANY_EXTENSION_ORIGIN.test(origin);
}

/** EXTENSION_ORIGINS: a comma-separated list; empty means "any Chrome extension". Throws on a malformed entry. */
export function parseExtensionOrigins(value: string | undefined): string[] {
  const origins = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = origins.filter((o) => !isExtensionOriginSyntax(o));
  if (bad.length > 0) throw new Error(`not an extension origin: ${bad.join(', ')} (expected e.g. chrome-extension://<32 letters a-p>)`);
  return origins;
}

/**
 * Which origins may drive the cookie-authenticated endpoints: the server's own origin and the extension's.
 *
 * The extension's id is not known in advance (an unpacked install's id depends on its folder, a store install's on
 * the store), so by default any Chrome extension origin is allowed. That admits no website: the threat the Origin
 * check answers is a web page making a signed-in browser call the API, and a web page cannot send a
 * chrome-extension:// Origin. An operator who knows the id narrows it with EXTENSION_ORIGINS.
 */
export class OriginPolicy {
  private readonly listed: ReadonlySet<string> | undefined;

  constructor(extensionOrigins: readonly string[] = []) {
    this.listed = extensionOrigins.length > 0 ? new Set(extensionOrigins) : undefined;
  }

  isExtensionOrigin(origin: string | undefined): boolean {
    if (!origin) return false;
    return this.listed ? this.listed.has(origin) : CHROME_EXTENSION_ORIGIN.test(origin);
  }

  /** The origin this request was addressed to, as the browser saw it (behind TRUST_PROXY: the forwarded one). */
  ownOrigin(req: Request): string | undefined {
    const host = req.host;
    if (!host) return undefined;
    try {
      return new URL(`${req.protocol}://${host}`).origin;
    } catch {
      return undefined;
    }
  }

  isAllowed(origin: string, req: Request): boolean {
    if (this.isExtensionOrigin(origin)) return true;
    let normalised: string;
    try {
      normalised = new URL(origin).origin;
    } catch {
      return false;
    }
    // `new URL('null').origin` throws; opaque origins ("null") never match.
    return normalised !== 'null' && normalised === this.ownOrigin(req);
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
      if (site === 'cross-site' || site === 'same-site') return next(new AppError('forbidden_origin'));
      return next();
    }
    if (!policy.isAllowed(origin, req)) return next(new AppError('forbidden_origin'));
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
