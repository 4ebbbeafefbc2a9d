import { storage } from 'wxt/utils/storage';

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

export function isDisabledFor(list: readonly string[], site: string): boolean {
  return list.includes(site);
}

export function toggleSite(list: readonly string[], site: string, enabled: boolean): string[] {
  const rest = list.filter((s) => s !== site);
  return enabled ? rest : [...rest, site];
}
