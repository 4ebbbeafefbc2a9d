import { effective, readManagedSettings, type Managed, type ManagedSettings } from './managed-settings';
import { apiKeyItem, checksPageTextOn, serverUrlItem } from './settings';

/** The server and key every request of the background uses, and which of them the organisation set. */
export interface EffectiveConnection {
  serverUrl: string;
  apiKey: string;
  managed: { serverUrl: boolean; apiKey: boolean };
}

/** What the person saved in the options page. */
export interface OwnConnection {
  serverUrl: string;
  apiKey: string;
}

/**
 * The policy's server and key where it holds usable ones, the person's own otherwise (an invalid managed value is
 * not used: parseManaged has already turned it into a problem). Each half on its own: a policy that sets only the
 * server keeps the person's key.
 */
export function connectionFrom(managed: Pick<ManagedSettings, 'serverUrl' | 'apiKey'>, own: OwnConnection) {
  return {
    serverUrl: effective(managed.serverUrl, own.serverUrl),
    apiKey: effective(managed.apiKey, own.apiKey),
    managed: { serverUrl: managed.serverUrl?.ok === true, apiKey: managed.apiKey?.ok === true },
  } satisfies EffectiveConnection;
}

/**
 * The connection as it is now, for every request the background makes (checks, alerts, the account and catchment
 * calls). Read afresh each time from managed storage and storage.local, so a policy change applies to the next
 * request, and the managed key is never copied anywhere.
 */
export async function effectiveConnection(): Promise<EffectiveConnection> {
  const [managed, serverUrl, apiKey] = await Promise.all([
    readManagedSettings(['server_url', 'api_key']),
    serverUrlItem.getValue(),
    apiKeyItem.getValue(),
  ]);
  return connectionFrom(managed, { serverUrl, apiKey });
}

/**
 * Whether postcodes in the page's text get badges on `site`: the organisation's on/off for every site when it set a
 * usable one, else the person's per-site switch (the popup's; `offList` is readOnlyOffSitesItem's).
 */
export function pageTextOn(managed: Managed<boolean> | undefined, offList: readonly string[], site: string): boolean {
  return effective(managed, checksPageTextOn(offList, site));
}

/** Whether the background checks the server for catchment alerts: on unless the organisation switched them off. */
export function alertsOn(managed: Managed<boolean> | undefined): boolean {
  return effective(managed, true);
}
