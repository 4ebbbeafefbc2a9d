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

/** The match pattern a host permission for this server needs: its scheme and host, any port. */
export function originPattern(serverUrl: string): string {
  const url = new URL(serverUrl);
  return `${url.protocol}//${url.hostname}/*`;
}
