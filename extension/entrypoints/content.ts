import { defineContentScript } from 'wxt/utils/define-content-script';
import { checkThroughBackground, onMessage, sendMessage } from '../common/messaging';
import { disabledSitesItem, isDisabledFor } from '../common/settings';
import { topSite } from '../common/site';
import { PageController } from '../page/page-controller';

/**
 * Runs in every http(s) page and frame. It reads nothing but postcode fields, and sends nothing but a complete
 * postcode, to the background (which alone talks to the server).
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
    const apply = (disabled: readonly string[]) => {
      if (isDisabledFor(disabled, site)) controller.stop();
      else controller.start();
    };
    apply(await disabledSitesItem.getValue());
    const unwatch = disabledSitesItem.watch((list) => apply(list ?? []));
    const unlisten = onMessage('configChanged', () => controller.recheckProblems());
    ctx.onInvalidated(() => {
      unwatch();
      unlisten();
    });
  },
});
