import { defineContentScript } from 'wxt/utils/define-content-script';
import { checkThroughBackground, onMessage, sendMessage } from '../common/messaging';
import { checksPageTextOn, disabledSitesItem, isDisabledFor, readOnlyOffSitesItem } from '../common/settings';
import { topSite } from '../common/site';
import { PageController } from '../page/page-controller';
import { PageTextBadges } from '../page/page-text-badges';
import { handleSelectionResult } from '../page/selection-check';

/**
 * Runs in every http(s) page and frame. It reads postcode fields and, unless switched off for the site, postcodes in
 * addresses shown as text, and sends nothing but a complete postcode, to the background (which alone talks to the
 * server).
 */
export default defineContentScript({
  matches: ['*://*/*'],
  allFrames: true,
  // about:blank and srcdoc frames a page builds itself (same-origin) get the script too.
  matchAboutBlank: true,
  runAt: 'document_idle',
  async main(ctx) {
    const site = topSite(window);
    const controller = new PageController(ctx, document, {
      check: checkThroughBackground,
      openOptions: () => void sendMessage('openOptions').catch(() => undefined),
    });
    const pageText = new PageTextBadges(document, controller);
    // Two switches per site (popup): the extension as a whole, and badges on postcodes in the page's text.
    let siteOff = isDisabledFor(await disabledSitesItem.getValue(), site);
    let textOn = checksPageTextOn(await readOnlyOffSitesItem.getValue(), site);
    const apply = () => {
      if (siteOff) {
        pageText.stop();
        controller.stop();
        return;
      }
      controller.start();
      if (textOn) pageText.start();
      else pageText.stop();
    };
    apply();
    const unwatchSite = disabledSitesItem.watch((list) => {
      siteOff = isDisabledFor(list ?? [], site);
      apply();
    });
    const unwatchText = readOnlyOffSitesItem.watch((list) => {
      textOn = checksPageTextOn(list ?? [], site);
      apply();
    });
    const unlisten = onMessage('configChanged', () => controller.recheckProblems());
    // The context menu's answer for a selection in this frame; shown even on a switched-off site (it says so).
    const unlistenSelection = onMessage('showSelectionResult', ({ data }) =>
      handleSelectionResult(data, (range, postcode, outcome) => controller.showSelection(range, postcode, outcome)),
    );
    ctx.onInvalidated(() => {
      unwatchSite();
      unwatchText();
      unlisten();
      unlistenSelection();
      pageText.stop();
    });
  },
});
