import { SET_BY_ORGANISATION } from '../../common/managed-settings';
import type { SiteSwitchState } from './useSiteSwitches';

/** The switches for the site the extension runs on; page text can be switched only while the site is on. */
export function SiteSwitches({ site, ...state }: SiteSwitchState & { site: string }) {
  return (
    <>
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={state.enabled}
          onChange={(e) => state.onToggle(e.target.checked)}
        />
        Enabled on this site
        <span className="site-name">{site}</span>
      </label>
      {/* Addresses shown as text on the page; postcode fields keep their badges either way. */}
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={state.checksPageText}
          disabled={!state.enabled || state.pageTextManaged}
          aria-describedby="page-text-hint"
          onChange={(e) => state.onTogglePageText(e.target.checked)}
        />
        Check postcodes in page text on this site
      </label>
      <p id="page-text-hint" className="hint">
        {state.pageTextManaged && <span className="managed-mark">{SET_BY_ORGANISATION}. </span>}
        When off, only postcode fields get badges on this site.
      </p>
    </>
  );
}
