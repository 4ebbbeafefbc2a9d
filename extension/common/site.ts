import { browser } from 'wxt/browser';
import { parseHttpUrl } from '../../ui/common/url';

/**
 * The site a frame belongs to, as the popup names it: the origin of the top-level page. A frame inside the
 * practice software is switched off with it. `about:blank` frames inherit their parent's origin.
 */
export function topSite(win: Window): string {
  const ancestors = win.location.ancestorOrigins;
  if (ancestors && ancestors.length > 0) return ancestors[ancestors.length - 1]!;
  const origin = win.location.origin;
  if (origin && origin !== 'null') return origin;
  return win.origin;
}

/** The site of a tab's URL, or null for pages the extension never runs in (chrome://, file://, the Web Store…). */
export function siteOfUrl(url: string | undefined): string | null {
  return url ? (parseHttpUrl(url)?.origin ?? null) : null;
}

/**
 * The site of the tab the popup was opened on, or null where the extension never runs. The tab's address is
 * readable because opening the popup grants `activeTab` for that tab; nothing else is read from it.
 */
export async function currentSite(): Promise<string | null> {
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
  return siteOfUrl(tab?.url);
}
