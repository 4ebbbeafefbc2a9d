import type { Browser } from 'wxt/browser';
import { SELECTION_NOTICES, type SelectionResult } from '../common/messaging';
import type { CheckOutcome } from '../../ui/result/outcome';
import { postcodeInText } from '../common/postcode';
import { isDisabledFor } from '../common/settings';
import { siteOfUrl } from '../common/site';

export const SELECTION_MENU_ID = 'dte-check-selection';

/**
 * "Check disaster eligibility" in the context menu of selected text, on http(s) pages and frames only (where the
 * content script runs and can show the answer). On a site switched off in the popup it still appears (a menu cannot
 * be hidden per site without reading every tab's address) and answers that the extension is switched off there.
 */
export const SELECTION_MENU: Browser.contextMenus.CreateProperties = {
  id: SELECTION_MENU_ID,
  title: 'Check disaster eligibility',
  contexts: ['selection'],
  documentUrlPatterns: ['http://*/*', 'https://*/*'],
};

/** The parts of a context-menu click the check uses (what Chrome and Firefox pass to `contextMenus.onClicked`). */
export interface SelectionClick {
  menuItemId: string | number;
  selectionText?: string;
  /** The top-level page's address: its origin is the site as the popup names it. */
  pageUrl?: string;
  frameId?: number;
}

export interface SelectionMenuDeps {
  /** The badges' check (CheckService): every failure is an outcome, never a rejection. */
  check(postcode: string): Promise<CheckOutcome>;
  switchedOffSites(): Promise<readonly string[]>;
  /** Sends the result to the content script of that frame; its answer, or a rejection when none answered. */
  send(result: SelectionResult, target: { tabId: number; frameId: number }): Promise<boolean>;
}

/** What a click did: the result sent to the frame, and whether a content script took it and showed it. */
export interface SelectionReport {
  tabId: number;
  frameId: number;
  result: SelectionResult;
  /** A content script in the frame answered the message. */
  delivered: boolean;
  /** It found the selection and showed the result there. */
  shown: boolean;
}

/**
 * The context-menu click on selected text: the first postcode in it (the browser hands the selected text to the
 * background; only that postcode goes on to the server, through the badges' own check), and the answer sent to the
 * content script of the frame the text was selected in. Null for another menu item or a click outside a tab.
 */
export async function checkSelection(
  info: SelectionClick,
  tab: { id?: number; url?: string } | undefined,
  deps: SelectionMenuDeps,
): Promise<SelectionReport | null> {
  if (info.menuItemId !== SELECTION_MENU_ID || tab?.id === undefined || tab.id < 0) return null;
  const target = { tabId: tab.id, frameId: info.frameId ?? 0 };
  const site = siteOfUrl(info.pageUrl ?? tab.url);
  let result: SelectionResult;
  if (site !== null && isDisabledFor(await deps.switchedOffSites(), site)) {
    result = { postcode: null, outcome: SELECTION_NOTICES.switched_off };
  } else {
    const postcode = postcodeInText(info.selectionText ?? '');
    result = postcode
      ? { postcode, outcome: await deps.check(postcode) }
      : { postcode: null, outcome: SELECTION_NOTICES.no_postcode };
  }
  let delivered = false;
  let shown = false;
  try {
    shown = (await deps.send(result, target)) === true;
    delivered = true;
  } catch {
    // No content script in that frame (a page loaded before the extension was installed or updated).
  }
  return { ...target, result, delivered, shown };
}
