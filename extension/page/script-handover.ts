import { ContentScriptContext } from 'wxt/utils/content-script-context';
import { defineWxtPlugin } from 'wxt/utils/define-wxt-plugin';
import { CONTENT_SCRIPT_MARK } from '../common/enabled-sites';

/**
 * WXT's content-script context tells an older copy of the script in the same frame to stop (after the extension is
 * updated or reloaded) with a DOM event and a window message that the page sees too: the message names the
 * extension's id, and any script of the page can dispatch the same event to switch the script off (an event a script
 * makes cannot be told from ours: neither is trusted). WXT has no option for another way, so its two steps are
 * replaced before the context is made: copies of this script share their isolated world, which the page cannot reach,
 * and there the newer one stops the older one, found where the live one keeps its context (`mark`). No event is sent,
 * and none is heard.
 */
export function handOverInIsolatedWorld(mark: string): void {
  const context = ContentScriptContext.prototype;
  context.stopOldScripts = function stopOldScripts(this: ContentScriptContext) {
    const older = (globalThis as unknown as Record<symbol, Partial<ContentScriptContext> | undefined>)[
      Symbol.for(mark)
    ];
    if (older && older !== this && typeof older.notifyInvalidated === 'function') older.notifyInvalidated();
  };
  context.listenForNewerScripts = () => undefined;
}

/**
 * A WXT plugin (wxt.config.ts adds it): plugins run in each entrypoint before WXT makes the content script's context,
 * which an import from content.ts itself cannot do (WXT also loads that file in Node at build time, where the context's
 * module cannot load).
 */
export default defineWxtPlugin(() => {
  if (import.meta.env.ENTRYPOINT === 'content') handOverInIsolatedWorld(CONTENT_SCRIPT_MARK);
});
