import type { ContentScriptContext } from 'wxt/utils/content-script-context';
import { defineContentScript } from 'wxt/utils/define-content-script';
import { CONTENT_SCRIPT_MARK } from '../common/enabled-sites';
import { checkThroughBackground, onMessage, sendMessage, type SiteSwitches } from '../common/messaging';
import { topSite } from '../common/site';
import { PageController } from '../page/page-controller';
import { PageTextBadges } from '../page/page-text-badges';
import { handleSelectionResult } from '../page/selection-check';

/**
 * Runs in the pages and frames of the sites chosen for it (the policy's and the person's), and wherever the context
 * menu's check of a selection needs to show its answer. It reads postcode fields and, unless switched off for the
 * site, postcodes in addresses shown as text, and sends nothing but a complete postcode, to the background (which
 * alone talks to the server).
 */
export default defineContentScript({
  // Not in the manifest: the background registers it for the chosen sites only (all frames, about:blank and srcdoc
  // ones included, at document_idle: extension/background/site-scripts.ts), so installing asks for no site at all.
  registration: 'runtime',
  async main(ctx) {
    // For the background: a frame with a live script is not given a second one; and for a newer copy, which stops it.
    (globalThis as unknown as Record<symbol, unknown>)[Symbol.for(CONTENT_SCRIPT_MARK)] = ctx;
    const site = topSite(window);
    const controller = new PageController(ctx, document, {
      check: checkThroughBackground,
      openOptions: () => void sendMessage('openOptions').catch(() => undefined),
    });
    const pageText = new PageTextBadges(document, controller);
    // Run on demand on a site not chosen (the context menu's answer), the script shows that answer and nothing else;
    // a site the person stops using, or the policy drops, stops at once.
    const unwatch = await followSwitches(ctx, site, ({ running, textOn }) => {
      if (!running) {
        pageText.stop();
        controller.stop();
        return;
      }
      controller.start();
      if (textOn) pageText.start();
      else pageText.stop();
    });
    const unlisten = listenToBackground(controller);
    ctx.onInvalidated(() => {
      unwatch();
      unlisten();
      pageText.stop();
    });
  },
});

/**
 * Asks the background for the switches that decide what the script does in this frame and calls `apply` with them,
 * now and whenever the background says they changed; returns what stops following them. The background reads the
 * lists and the policy (they are kept where content scripts cannot read them) and names this frame as the browser
 * does; `site` is the top-level page's origin, for the popup's per-site switches.
 */
async function followSwitches(
  ctx: ContentScriptContext,
  site: string,
  apply: (switches: SiteSwitches) => void,
): Promise<() => void> {
  let asked = 0;
  const ask = async () => {
    // Answers may cross: only the latest question's is applied.
    const question = ++asked;
    const switches = await sendMessage('siteSwitches', site).catch(() => null);
    if (switches && question === asked && !ctx.isInvalid) apply(switches);
  };
  const unlisten = onMessage('switchesChanged', () => void ask());
  await ask();
  return unlisten;
}

/** The background's messages to this frame; returns what stops listening to them. */
function listenToBackground(controller: PageController): () => void {
  const unlisten = onMessage('configChanged', () => controller.recheckProblems());
  // The context menu's answer for a selection in this frame; shown even on a switched-off site (it says so).
  const unlistenSelection = onMessage('showSelectionResult', ({ data }) =>
    handleSelectionResult(data, (range, postcode, outcome) => controller.showSelection(range, postcode, outcome)),
  );
  return () => {
    unlisten();
    unlistenSelection();
  };
}
