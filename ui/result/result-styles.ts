/**
 * Styles of the result view, shared by the extension's in-page panel (inside a shadow root, so the page's CSS cannot
 * reach it) and popup, and the console's Check page. Colours pass WCAG AA contrast for their text; every colour also
 * comes with words.
 */
export const RESULT_CSS = `
.dte-result { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #1b1f24; }
.dte-result h2 { font-size: 15px; margin: 6px 0; font-weight: 650; }
.dte-result h3 { font-size: 13px; margin: 12px 0 4px; text-transform: uppercase; letter-spacing: .03em; color: #4a525c; }
.dte-result p { margin: 4px 0; }
.dte-result ol, .dte-result ul { margin: 4px 0; padding-left: 20px; }
.dte-result li { margin: 3px 0; }
.dte-status { display: inline-flex; gap: 6px; align-items: center; font-weight: 650; padding: 2px 8px; border-radius: 999px; border: 1px solid; }
/* One palette for the status line and the in-page badge (whose shape is in page/badge-styles.ts). */
.dte-tone-green > .dte-status, .dte-badge[data-tone="green"] { background: #e3f4e6; border-color: #1e7b34; color: #145224; }
.dte-tone-amber > .dte-status, .dte-badge[data-tone="amber"] { background: #fff1d6; border-color: #a15c00; color: #6b3d00; }
/* Partly covered: its own colour, never green (violet: no traffic-light colour says "check first"); 8.5:1 text. */
.dte-tone-partial > .dte-status, .dte-badge[data-tone="partial"] { background: #efe9fb; border-color: #6941c6; color: #4a2a99; }
.dte-tone-red > .dte-status, .dte-badge[data-tone="red"] { background: #fde7e7; border-color: #b42318; color: #7a1710; }
.dte-tone-neutral > .dte-status, .dte-badge[data-tone="neutral"] { background: #eef0f3; border-color: #59636e; color: #2d333a; }
.dte-coverage { font-weight: 650; }
.dte-location { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 8px 0; }
.dte-location dt { color: #4a525c; }
.dte-location dd { margin: 0; }
.dte-declarations { list-style: none; padding-left: 0 !important; }
.dte-declaration { display: grid; grid-template-columns: 12px 1fr; column-gap: 6px; }
.dte-declaration > :not(.dte-dot) { grid-column: 2; }
.dte-declaration-meta { color: #4a525c; font-size: 13px; }
.dte-declaration-instrument { font-size: 13px; }
.dte-dot { width: 10px; height: 10px; border-radius: 50%; margin-top: 5px; grid-row: 1 / span 4; background: #59636e; }
.dte-declaration.dte-tone-green .dte-dot { background: #1e7b34; }
.dte-declaration.dte-tone-amber .dte-dot { background: #c77700; }
.dte-declaration.dte-tone-red .dte-dot { background: #b42318; }
.dte-link { color: #0b57d0; }
.dte-drfa { margin: 4px 0; font-size: 13px; }
.dte-drfa summary { cursor: pointer; color: #0b57d0; width: max-content; max-width: 100%; }
.dte-proforma { white-space: pre-wrap; font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; background: #f6f7f9; border: 1px solid #d5d9de; border-radius: 4px; padding: 8px; margin: 4px 0; max-height: 180px; overflow: auto; }
.dte-button { font: inherit; font-weight: 600; padding: 4px 12px; border-radius: 4px; border: 1px solid #3a4450; background: #fff; color: #1b1f24; cursor: pointer; }
.dte-button:hover { background: #eef0f3; }
.dte-button:focus-visible, .dte-badge:focus-visible, .dte-proforma:focus-visible, .dte-drfa summary:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
.dte-copy-status { font-size: 13px; color: #145224; }
.dte-meta, .dte-disclaimers { font-size: 12px; color: #4a525c; }
`;
