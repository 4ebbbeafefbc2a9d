import type { ContentScriptContext } from 'wxt/utils/content-script-context';
import { defineContentScript } from 'wxt/utils/define-content-script';
import { CONTENT_SCRIPT_MARK, enabledSitesItem, isSiteChosen } from '../common/enabled-sites';
import { readManagedSettings, watchManagedSettings, type Managed } from '../common/managed-settings';
import { checkThroughBackground, onMessage, sendMessage } from '../common/messaging';
import { pageTextOn } from '../common/effective-settings';
import { disabledSitesItem, isDisabledFor, readOnlyOffSitesItem } from '../common/settings';
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
    // For the background: a frame with a live script is not given a second one.
    (globalThis as unknown as Record<symbol, unknown>)[Symbol.for(CONTENT_SCRIPT_MARK)] = ctx;
    const site = topSite(window);
    const controller = new PageController(ctx, document, {
      check: checkThroughBackground,
      openOptions: () => void sendMessage('openOptions').catch(() => undefined),
    });
    const pageText = new PageTextBadges(document, controller);
    // Run on demand on a site not chosen (the context menu's answer), the script shows that answer and nothing else;
    // a site the person stops using, or the policy drops, stops at once. The frame's own origin, as registration
    // matches it (an about:blank or srcdoc frame has its creator's).
    const origin = window.origin !== 'null' ? window.origin : site;
    const unwatch = await followSwitches(ctx, site, origin, ({ running, textOn }) => {
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

/** What the script does in this frame, as the site's switches and the policy stand. */
interface Switches {
  /** Badges at all: the site is chosen (the policy's or the person's) and not switched off in the popup. */
  running: boolean;
  /** Badges on postcodes in the page's text too. */
  textOn: boolean;
}

/**
 * Reads the switches that decide what the script does in this frame and calls `apply` with them, now and on every
 * change; returns what stops following them.
 */
async function followSwitches(
  ctx: ContentScriptContext,
  site: string,
  origin: string,
  apply: (switches: Switches) => void,
): Promise<() => void> {
  let enabledSites = await enabledSitesItem.getValue();
  let policySites: Managed<string[]> | undefined;
  let chosen = isSiteChosen(origin, enabledSites, policySites);
  // Two switches per site (popup): the extension as a whole, and badges on postcodes in the page's text.
  let siteOff = isDisabledFor(await disabledSitesItem.getValue(), site);
  // The page-text switch: the organisation's on/off for every site when its policy sets one, else the person's.
  let textOffSites = await readOnlyOffSitesItem.getValue();
  let textPolicy: Managed<boolean> | undefined;
  const update = () => apply({ running: !siteOff && chosen, textOn: pageTextOn(textPolicy, textOffSites, site) });
  update();
  const choose = () => {
    chosen = isSiteChosen(origin, enabledSites, policySites);
    update();
  };
  // Not awaited: the browser may take seconds to load the policy after a start (nothing waits for it meanwhile,
  // and no change of the person's switches is missed), and the person's own sites need none of it. A policy site
  // starts, and the organisation's page-text choice applies, as soon as it is read.
  void readManagedSettings(['sites', 'page_text']).then((managed) => {
    if (ctx.isInvalid) return;
    policySites = managed.sites;
    textPolicy = managed.pageText;
    choose();
  });
  const unwatch = [
    enabledSitesItem.watch((list) => {
      enabledSites = list ?? [];
      choose();
    }),
    watchManagedSettings(
      (managed) => {
        policySites = managed.sites;
        choose();
      },
      ['sites'],
    ),
    disabledSitesItem.watch((list) => {
      siteOff = isDisabledFor(list ?? [], site);
      update();
    }),
    readOnlyOffSitesItem.watch((list) => {
      textOffSites = list ?? [];
      update();
    }),
    watchManagedSettings(
      (managed) => {
        textPolicy = managed.pageText;
        update();
      },
      ['page_text'],
    ),
  ];
  return () => {
    for (const stop of unwatch) stop();
  };
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
