/**
 * The overlay module on its own, for tests that drive its API directly (anchors in text, panels at a selection):
 * bundled by overlay-harness's `overlayHarnessScript` and injected into a page, it exposes `window.dteOverlay`.
 * WXT's content-script context is reduced to what the overlay uses of it.
 */
import type { ContentScriptContext } from 'wxt/utils/content-script-context';
import { Overlay } from '../../../extension/page/overlay/overlay';

const ctx = {
  isInvalid: false,
  options: {},
  onInvalidated: () => () => undefined,
} as unknown as ContentScriptContext;

(window as unknown as { dteOverlay: unknown }).dteOverlay = {
  create: () => new Overlay(ctx, document, {}),
};
