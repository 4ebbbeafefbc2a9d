import { useEffect, useState } from 'react';
import type { WxtStorageItem } from 'wxt/utils/storage';
import { pageTextOn } from '../../common/effective-settings';
import type { ManagedView } from '../../common/managed-settings';
import { disabledSitesItem, isDisabledFor, readOnlyOffSitesItem, toggleSite } from '../../common/settings';
import { currentSite } from '../../common/site';

/** The site of the tab the popup opened over; null where the extension does not run (and until it is read). */
export function useCurrentSite(): string | null {
  const [site, setSite] = useState<string | null>(null);
  useEffect(() => {
    void currentSite()
      .then(setSite)
      .catch(() => setSite(null));
  }, []);
  return site;
}

/** A list of sites in storage, kept current while the popup is open: another window may change it. */
function useStoredSites(item: WxtStorageItem<string[], Record<string, never>>) {
  const [sites, setSites] = useState<string[]>([]);
  useEffect(() => {
    void item.getValue().then(setSites);
    return item.watch((list) => setSites(list ?? []));
  }, [item]);
  // Shown at once; the storage watcher then confirms it (or brings another window's change).
  const save = (list: string[]) => {
    setSites(list);
    void item.setValue(list);
  };
  return [sites, save] as const;
}

/** The site's two switches as SiteSwitches shows them. */
export interface SiteSwitchState {
  enabled: boolean;
  onToggle(next: boolean): void;
  checksPageText: boolean;
  /** The organisation's policy sets the page-text switch for every site. */
  pageTextManaged: boolean;
  onTogglePageText(next: boolean): void;
}

/** The person's switches for the tab's site: the extension on or off, and badges on postcodes in the page's text. */
export function useSiteSwitches(site: string | null, managed: ManagedView | null): SiteSwitchState {
  const [disabledSites, saveDisabledSites] = useStoredSites(disabledSitesItem);
  const [readOnlyOffSites, saveReadOnlyOffSites] = useStoredSites(readOnlyOffSitesItem);
  return {
    enabled: site !== null && !isDisabledFor(disabledSites, site),
    onToggle: (next) => {
      if (site !== null) saveDisabledSites(toggleSite(disabledSites, site, next));
    },
    // The organisation's on/off, when its policy sets one, holds for every site: the switch shows it read-only.
    pageTextManaged: managed?.pageText?.ok === true,
    checksPageText: site !== null && pageTextOn(managed?.pageText, readOnlyOffSites, site),
    onTogglePageText: (next) => {
      if (site !== null) saveReadOnlyOffSites(toggleSite(readOnlyOffSites, site, next));
    },
  };
}
