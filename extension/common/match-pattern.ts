import { parse } from 'tldts';

/**
 * A site pattern checked as Chrome checks a content script's match pattern (scheme, host, port, path), and more
 * strictly where Chrome would accept a pattern that runs the extension on sites nobody meant: no bare `*`, no `*.`
 * before a whole domain ending many organisations share (`*.com`, `*.com.au`, `*.github.io`), none before an IP
 * address's numbers (`*.1`). Chrome refuses the whole registration for one bad pattern, so every pattern is checked
 * here first. The problem is said in words that never repeat the pattern: a policy value may be anything pasted
 * into the wrong field (a password, a key).
 */
export type PatternCheck = { ok: true; pattern: string } | { ok: false; problem: string };

const SHAPE = /^([^:/]*):\/\/([^/]*)(\/.*)?$/;
const HOST_CHARS = /^[a-z0-9.-]+$/;
const MAX_PORT = 65_535;

const refuse = (problem: string): PatternCheck => ({ ok: false, problem });

/** `https://pms.example.com.au` alone is taken as its `/*`; the host is lower-cased. */
export function checkSitePattern(raw: string): PatternCheck {
  const text = raw.trim();
  const shape = SHAPE.exec(text);
  if (!shape) return refuse('it is not a site address such as https://pms.example.com.au');
  const [, scheme = '', authority = '', path] = shape;
  if (scheme !== 'https' && scheme !== 'http' && scheme !== '*') {
    return refuse('it does not start with https://, http:// or *://');
  }
  if (authority.includes('@')) return refuse('it holds a user name or password, which a site address never needs');
  const portAt = authority.lastIndexOf(':');
  const hostPart = (portAt >= 0 ? authority.slice(0, portAt) : authority).toLowerCase();
  const port = portAt >= 0 ? authority.slice(portAt + 1) : null;
  if (port !== null) {
    if (!/^\d{1,5}$/.test(port)) return refuse('its port is not a number');
    if (Number(port) > MAX_PORT) return refuse(`its port is over ${MAX_PORT}, the largest there is`);
  }
  const wildcard = hostPart.startsWith('*.');
  const host = wildcard ? hostPart.slice(2) : hostPart;
  const hostProblem = problemOfHost(host, wildcard, hostPart);
  if (hostProblem) return refuse(hostProblem);
  return {
    ok: true,
    pattern: `${scheme}://${hostPart}${port === null ? '' : `:${port}`}${path && path !== '/' ? path : '/*'}`,
  };
}

function problemOfHost(host: string, wildcard: boolean, written: string): string | null {
  if (written === '*' || written === '') return 'it names every site, and the extension runs only on chosen ones';
  if (host.includes('*')) return 'a * may only start the site name, as in https://*.example.com.au';
  const labels = host.split('.');
  if (!HOST_CHARS.test(host) || labels.some((label) => label === '' || label.length > 63) || host.length > 253) {
    return 'its site name holds characters or dots a site name cannot have';
  }
  const numeric = /^\d+$/.test(labels[labels.length - 1]!);
  if (numeric && wildcard) return 'its * stands for a range of IP addresses, which could be any computer';
  if (numeric && !isIpv4(labels)) return 'its IP address is not a valid one';
  if (wildcard && isPublicSuffix(host)) {
    return 'its * covers a whole domain ending (like .com or .com.au) that many organisations share';
  }
  return null;
}

function isIpv4(labels: readonly string[]): boolean {
  return labels.length === 4 && labels.every((label) => /^(0|[1-9]\d{0,2})$/.test(label) && Number(label) <= 255);
}

/**
 * A domain ending anyone may register names under (the public suffix list, its private part too: `*.github.io` is as
 * wide as `*.com`). An ending the list does not know (`localhost`, `internal`) counts as one.
 */
function isPublicSuffix(host: string): boolean {
  const parsed = parse(host, { allowPrivateDomains: true, extractHostname: false });
  return parsed.domain === null || parsed.publicSuffix === host;
}
