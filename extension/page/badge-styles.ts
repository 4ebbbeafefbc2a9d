import { RESULT_CSS } from '../result/result-styles';

/** The badge and its panel, inside the shadow root next to a postcode field (tone colours: RESULT_CSS). */
export const BADGE_CSS = `
:host { display: inline-block !important; vertical-align: middle !important; margin: 0 0 0 6px !important; position: relative !important; }
html, body { display: inline; margin: 0; padding: 0; }
.dte-badge { display: inline-flex; align-items: center; gap: 5px; font: 600 12px/1.2 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif;
  padding: 3px 9px; border-radius: 999px; border: 1px solid; cursor: pointer; white-space: nowrap; max-width: 42ch; overflow: hidden; text-overflow: ellipsis; }
.dte-badge[data-tone="pending"] { background: #fff; border-color: #8a939d; color: #4a525c; }
.dte-swatch { width: 9px; height: 9px; border-radius: 50%; background: currentColor; flex: none; }
.dte-panel { position: fixed; z-index: 2147483647; box-sizing: border-box; width: min(440px, calc(100vw - 16px)); overflow: auto;
  background: #fff; border: 1px solid #8a939d; border-radius: 8px; box-shadow: 0 8px 28px rgba(0,0,0,.22); padding: 10px 14px 14px; }
.dte-panel[hidden] { display: none; }
.dte-panel-head { display: flex; justify-content: space-between; align-items: center; gap: 8px; font: 600 12px/1.2 system-ui, sans-serif; color: #4a525c; }
.dte-panel-head button { font: inherit; border: 1px solid #8a939d; background: #fff; border-radius: 4px; padding: 2px 8px; cursor: pointer; }
${RESULT_CSS}
`;
