import { browser } from 'wxt/browser';
import { storage } from 'wxt/utils/storage';
import { enabledSitesItem, siteOrigin, sitePermissionPattern } from '../common/enabled-sites';
import { disabledSitesItem, readOnlyOffSitesItem } from '../common/settings';

/**
 * Set once this profile has a version that runs only on chosen sites. Every version before it ran its content script
 * on every site, so an update that finds the flag missing is an update from one of those (comparing version numbers
 * would say the same today, and would be wrong for a build from a branch or a store rollback).
 */
export const siteChoiceIntroducedItem = storage.defineItem<boolean>('local:siteChoiceIntroduced', {
  fallback: false,
});

export const SITE_CHOICE_NOTIFICATION_ID = 'dte-site-choice';
export const SITE_CHOICE_MESSAGE =
  'Disaster eligibility now runs only on the sites you choose. Open your practice software and choose Use on this ' +
  'site from the toolbar button.';

/** What an install event means for the change to chosen sites. */
export interface SiteChoiceDecision {
  /** Tell the person, once, that the extension no longer runs everywhere. */
  notify: boolean;
  /** Carry over the sites the person had set up, where that needs no prompt. */
  carryOver: boolean;
  /** Remember that this profile has been told (or never needed telling). */
  markIntroduced: boolean;
}

/**
 * A new install never had the all-sites script: nothing to say. An update from a version without the flag had it:
 * one notification, the only way to reach a person whose badges just disappeared from the practice software (nothing
 * of the extension's runs in the page any more to say it there). A browser update, or a second update, says nothing.
 */
export function siteChoiceDecision(reason: string, introduced: boolean): SiteChoiceDecision {
  if (introduced) return { notify: false, carryOver: false, markIntroduced: false };
  if (reason === 'install') return { notify: false, carryOver: false, markIntroduced: true };
  if (reason === 'update') return { notify: true, carryOver: true, markIntroduced: true };
  return { notify: false, carryOver: false, markIntroduced: false };
}

/**
 * The sites a person certainly used the extension on: those where they switched off badges on page text and left
 * the extension on. A site switched off altogether is left out: not running there is what they chose, and now it
 * holds no access either.
 */
export function sitesToCarryOver(disabledSites: readonly string[], readOnlyOffSites: readonly string[]): string[] {
  const origins = readOnlyOffSites.map(siteOrigin).filter((o): o is string => o !== null);
  return [...new Set(origins)].filter((origin) => !disabledSites.includes(origin));
}

/**
 * On install or update. The carried-over sites are enabled only where the browser already gives host access
 * (localhost, a server's origin, or what Chrome kept from the old version): asking needs a click in the popup, and a
 * prompt for a list of sites at update time would come out of nowhere. The notification sends the person to the
 * popup for the rest, which keeps this simple: no list of "sites you used to use" to keep and show.
 */
export async function onSiteChoiceInstalled(details: { reason: string }): Promise<void> {
  const decision = siteChoiceDecision(details.reason, await siteChoiceIntroducedItem.getValue());
  if (decision.markIntroduced) await siteChoiceIntroducedItem.setValue(true);
  if (decision.carryOver) {
    const [disabled, readOnlyOff, enabled] = await Promise.all([
      disabledSitesItem.getValue(),
      readOnlyOffSitesItem.getValue(),
      enabledSitesItem.getValue(),
    ]);
    const candidates = sitesToCarryOver(disabled, readOnlyOff).filter((origin) => !enabled.includes(origin));
    const granted = await Promise.all(
      candidates.map((origin) =>
        browser.permissions.contains({ origins: [sitePermissionPattern(origin)] }).catch(() => false),
      ),
    );
    const carried = candidates.filter((_, i) => granted[i]);
    if (carried.length > 0) await enabledSitesItem.setValue([...enabled, ...carried]);
  }
  if (decision.notify) {
    await browser.notifications
      .create(SITE_CHOICE_NOTIFICATION_ID, {
        type: 'basic',
        iconUrl: browser.runtime.getURL('/icon/128.png'),
        title: 'Telehealth disaster eligibility',
        message: SITE_CHOICE_MESSAGE,
      })
      .catch(() => undefined);
  }
}
