import { storage } from 'wxt/utils/storage';

/**
 * What the extension keeps, all in `storage.local` of this browser profile (never synced to other devices: an API
 * key is a clinic's secret). Only the background and the extension's pages read it: the background keeps storage from
 * content scripts (TRUSTED_CONTEXTS), and answers them their switches from the site lists instead.
 *
 * These are the person's own values. An organisation's policy (managed-settings.ts) wins over them without touching
 * them: effective-settings.ts decides which applies, so they come back as they were if the policy drops a setting.
 */

/** Base URL of the eligibility server, e.g. `https://eligibility.example.com.au` (no trailing slash). */
export const serverUrlItem = storage.defineItem<string>('local:serverUrl', { fallback: '' });

/** The clinic's API key (`sk_live_…`); empty when none is saved. */
export const apiKeyItem = storage.defineItem<string>('local:apiKey', { fallback: '' });

/** Sites (origins such as `https://pms.example.com`) where the user switched the extension off from the popup. */
export const disabledSitesItem = storage.defineItem<string[]>('local:disabledSites', { fallback: [] });

/**
 * Sites where the user switched off the badges on postcodes in the page's text (displayed, read-only addresses);
 * postcode fields keep theirs. Switched on everywhere else.
 */
export const readOnlyOffSitesItem = storage.defineItem<string[]>('local:readOnlyOffSites', { fallback: [] });

export function isDisabledFor(list: readonly string[], site: string): boolean {
  return list.includes(site);
}

/** Whether postcodes in the page's text get badges on `site` (the list is `readOnlyOffSitesItem`'s). */
export function checksPageTextOn(list: readonly string[], site: string): boolean {
  return !list.includes(site);
}

/** The list with `site` taken out (`enabled`) or put in, once: for `disabledSitesItem` and `readOnlyOffSitesItem`. */
export function toggleSite(list: readonly string[], site: string, enabled: boolean): string[] {
  const rest = list.filter((s) => s !== site);
  return enabled ? rest : [...rest, site];
}
