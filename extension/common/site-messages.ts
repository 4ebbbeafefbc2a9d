import { defineExtensionMessaging } from '@webext-core/messaging';

/**
 * The popup's requests about the site of its tab, answered by the background (extension/background/site-scripts.ts).
 * Kept apart from messaging.ts's protocol: a messenger ignores the message types it has no listener for.
 */
export interface SiteProtocolMap {
  /**
   * "Use on this site": the popup has asked the browser for the site's host permission. Enabled at once when it is
   * granted; otherwise remembered, and enabled when the browser grants it (the popup may close while it asks).
   */
  useOnSite(site: string): { enabled: boolean };
  /** "Stop using on this site": off the enabled list, unregistered, and its host permission given back if unused. */
  stopOnSite(site: string): void;
}

export const { sendMessage: sendSiteMessage, onMessage: onSiteMessage } = defineExtensionMessaging<SiteProtocolMap>();
