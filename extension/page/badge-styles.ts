import { RESULT_CSS } from '../../ui/result/result-styles';

/**
 * The overlay layer: one host at the end of the page's body that takes no room (absolutely positioned, zero size), no
 * pointer events and no style from the page (WXT's reset puts `all: initial !important` first; inside a shadow root,
 * `!important` on `:host` wins over the page's own `!important`). Badges and panels are absolutely positioned inside
 * it by the overlay's tracker: in the document's coordinates (a page scroll carries them along on the compositor,
 * with no work and no repaint; they are only placed inside the viewport's width and the document's height, so they
 * never add to the page's scrollable area), or in a fixed box over the viewport for fields in scrolling containers
 * (each container's inside a clip box over it) and fixed fields. Only badges and panels take pointer events. Sizes
 * are in px, never rem: a rem would follow the page's root font size. Tone colours: RESULT_CSS.
 */
export const BADGE_CSS = `
:host {
  display: block !important; position: absolute !important; inset: 0 auto auto 0 !important;
  width: 0 !important; height: 0 !important; min-width: 0 !important; min-height: 0 !important;
  margin: 0 !important; padding: 0 !important; border: 0 !important; overflow: visible !important;
  z-index: 2147483647 !important; pointer-events: none !important; contain: none !important;
  visibility: visible !important; opacity: 1 !important; transform: none !important; filter: none !important;
  clip-path: none !important; mask: none !important; animation: none !important; transition: none !important;
}
html, body { display: block; margin: 0; padding: 0; width: 0; height: 0; overflow: visible; background: none; }
.dte-item { display: contents; }
.dte-fixed { position: fixed; inset: 0; contain: strict; pointer-events: none; overflow: visible; }
.dte-clip { position: absolute; left: 0; top: 0; overflow: hidden; contain: strict; pointer-events: none; }
.dte-badge {
  position: absolute; left: 0; top: 0; box-sizing: border-box; margin: 0; max-width: none; min-width: 0;
  display: inline-flex; align-items: center; gap: 5px; white-space: nowrap; pointer-events: auto;
  font: 600 12px/16px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; letter-spacing: normal;
  padding: 1px 8px; border-radius: 999px; border: 1px solid; cursor: pointer; text-align: left;
  box-shadow: 0 1px 3px rgba(0,0,0,.18);
  /* Its own compositing layer: following a scroll moves it without repainting the page under it. */
  will-change: transform;
}
.dte-badge[data-state="off"], .dte-badge[data-state="hidden"] { display: none; }
.dte-badge[data-state="measure"] { visibility: hidden; transform: none !important; }
.dte-badge[data-tone="pending"] { background: #fff; border-color: #8a939d; color: #4a525c; }
.dte-swatch { width: 9px; height: 9px; border-radius: 50%; background: currentColor; flex: none; }
.dte-short { display: none; }
.dte-short::before { content: attr(data-short) / ""; }
/* Compact: the dot and one word, smaller; the full words stay in the tree (the accessible name) but take no room. */
.dte-badge[data-mode="compact"] { gap: 4px; padding: 0 6px; font-size: 11px; line-height: 14px; }
.dte-badge[data-mode="compact"] .dte-short { display: inline; }
.dte-badge[data-mode="compact"] .dte-icon { display: none; }
.dte-badge[data-mode="compact"] .dte-swatch { width: 8px; height: 8px; }
.dte-badge[data-mode="compact"] .dte-label, .dte-badge[data-mode="mark"] .dte-label {
  position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip-path: inset(50%); white-space: nowrap;
}
/* Mark: the tone's symbol in a ring of its colour, for a field too narrow for a word beside or inside it. */
.dte-badge[data-mode="mark"] {
  width: 18px; height: 18px; padding: 0; gap: 0; justify-content: center; border-width: 1.5px;
  font-size: 11px; line-height: 1; font-weight: 700;
}
.dte-badge[data-mode="mark"] .dte-swatch, .dte-badge[data-mode="mark"] .dte-short { display: none; }
.dte-panel { position: absolute; box-sizing: border-box; width: min(440px, calc(100vw - 16px)); overflow: auto; pointer-events: auto;
  background: #fff; border: 1px solid #8a939d; border-radius: 8px; box-shadow: 0 8px 28px rgba(0,0,0,.22); padding: 10px 14px 14px;
  color: #1b1f24; text-align: left; }
.dte-panel[hidden] { display: none; }
.dte-panel-head { display: flex; justify-content: space-between; align-items: center; gap: 8px; font: 600 12px/1.2 system-ui, sans-serif; color: #4a525c; }
.dte-panel-head button { font: inherit; border: 1px solid #8a939d; background: #fff; border-radius: 4px; padding: 2px 8px; cursor: pointer; color: inherit; }
${RESULT_CSS}
`;
