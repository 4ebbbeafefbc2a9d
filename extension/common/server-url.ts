import { parseHttpUrl } from '../../ui/common/url';

/**
 * A server URL as the user typed it, made canonical: http(s) only, no credentials, query or fragment, no trailing
 * slash. Returns null for anything else.
 */
export function normaliseServerUrl(input: string): string | null {
  const url = parseHttpUrl(input.trim());
  if (!url || url.username || url.password) return null;
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}`;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a canonical server URL may carry the clinic's key: https, or http only to a server on this computer (the
 * key then never crosses a network). One rule for the organisation's policy and the options page.
 */
export function keepsKeyPrivate(serverUrl: string): boolean {
  const url = new URL(serverUrl);
  return url.protocol === 'https:' || LOOPBACK_HOSTS.has(url.hostname);
}

/** The match pattern a host permission for this server needs: its scheme and host, any port. */
export function originPattern(serverUrl: string): string {
  const url = new URL(serverUrl);
  return `${url.protocol}//${url.hostname}/*`;
}
