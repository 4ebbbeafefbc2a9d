import { enabledSitesItem, isSiteChosen, siteOrigin } from '../common/enabled-sites';
import { pageTextOn } from '../common/effective-settings';
import { readManagedSettings, watchManagedSettings } from '../common/managed-settings';
import type { SiteSwitches } from '../common/messaging';
import { disabledSitesItem, isDisabledFor, readOnlyOffSitesItem } from '../common/settings';

/**
 * What the content script does in a frame of `origin` (as the browser named the sender; null: none it runs on) on a
 * page of `site` (the top-level page's origin, as the script reads it): answered here, because the lists and the
 * policy are kept where content scripts cannot read them (storage holds the keys too).
 */
export async function switchesFor(origin: string | null, site: string): Promise<SiteSwitches> {
  const [enabled, switchedOff, textOff, managed] = await Promise.all([
    enabledSitesItem.getValue(),
    disabledSitesItem.getValue(),
    readOnlyOffSitesItem.getValue(),
    readManagedSettings(['sites', 'page_text']),
  ]);
  // A frame that names no site of its own is switched with its frame's origin.
  const top = siteOrigin(site) ?? origin ?? '';
  const chosen = origin !== null && isSiteChosen(origin, enabled, managed.sites);
  return { running: chosen && !isDisabledFor(switchedOff, top), textOn: pageTextOn(managed.pageText, textOff, top) };
}

/** Calls `changed` whenever anything switchesFor reads changes: the person's lists or the policy. */
export function watchSwitches(changed: () => void): void {
  enabledSitesItem.watch(changed);
  disabledSitesItem.watch(changed);
  readOnlyOffSitesItem.watch(changed);
  watchManagedSettings(changed, ['sites', 'page_text']);
}
