import { storage } from 'wxt/utils/storage';
import { parseHttpUrl } from './url';

/**
 * What the extension keeps, all in `storage.local` of this browser profile (never synced to other devices: an API
 * key is a clinic's secret). Content scripts read only `disabledSites`.
 */

/** Base URL of the eligibility server, e.g. `https://eligibility.example.com.au` (no trailing slash). */
export const serverUrlItem = storage.defineItem<string>('local:serverUrl', { fallback: '' });

/** The clinic's API key (`sk_live_…`); empty when none is saved. */
export const apiKeyItem = storage.defineItem<string>('local:apiKey', { fallback: '' });

/** Sites (origins such as `https://pms.example.com`) where the user switched the extension off from the popup. */
export const disabledSitesItem = storage.defineItem<string[]>('local:disabledSites', { fallback: [] });

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

export function isDisabledFor(list: readonly string[], site: string): boolean {
  return list.includes(site);
}

export function toggleSite(list: readonly string[], site: string, enabled: boolean): string[] {
  const rest = list.filter((s) => s !== site);
  return enabled ? rest : [...rest, site];
}
