import type { RequestHandler, Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * What a JSON response needs (OWASP REST Security Cheat Sheet): no content may load or run from it, no page may
 * frame it, no sniffing it into HTML, HTTPS only, no referrer, no cross-origin embedding. helmet's other headers
 * (DNS prefetch, IE download options, Flash cross-domain policies, the XSS auditor, origin-agent clusters, COOP)
 * only act on HTML documents; every response carries each header, so the API sends only the ones that act on it.
 */
export const API_SECURITY_HEADERS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  xFrameOptions: { action: 'deny' },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
};

/**
 * HTML pages (Swagger UI at /docs): helmet's full set. upgrade-insecure-requests would send the page's own assets
 * to https:// on a plain-HTTP local install.
 */
export const DOCUMENT_SECURITY_HEADERS: HelmetOptions = {
  contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
};

/**
 * helmet's headers, worked out once. helmet runs a chain of a dozen middlewares per request to set headers that
 * never change for given options; on the hot path that chain cost as much as the check itself. Running it once
 * against a recording response and replaying the result gives the very same headers.
 */
export function securityHeaders(options?: HelmetOptions): RequestHandler {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.set(name, String(value));
      return recorder;
    },
    removeHeader(name: string) {
      headers.delete(name);
    },
  };
  let finished = false;
  helmet(options)({} as never, recorder as unknown as Response, () => (finished = true));
  if (!finished) throw new Error('helmet did not finish synchronously; its headers cannot be precomputed');
  return (_req, res, next) => {
    res.setHeaders(headers);
    next();
  };
}
