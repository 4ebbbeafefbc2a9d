import type { ReactNode } from 'react';
import { SiteStatus } from './SiteStatus';
import { useSiteAccess } from './useSiteAccess';

/**
 * Whether the extension runs on the site of the popup's tab, and the way to change it: "Use on this site" and "Stop
 * using on this site" for the person's own sites; "Set by your organisation" for the policy's. `children` (the
 * site's switches) are shown only where the extension runs.
 */
export function SiteAccess({ site, children }: { site: string; children: ReactNode }) {
  const state = useSiteAccess(site);
  // Nothing until all is read: a button shown early could offer the wrong action.
  if (!state.ready) return null;
  return (
    <>
      <SiteStatus
        site={site}
        byPolicy={state.byPolicy}
        chosen={state.chosen}
        access={state.access}
        busy={state.busy}
        onUse={state.onUse}
        onStop={state.onStop}
      >
        {children}
      </SiteStatus>
      {state.lacking.length > 0 && (
        <p>
          <button type="button" onClick={state.onAllowPolicySites}>
            Allow on your organisation’s sites
          </button>
        </p>
      )}
      <p role="status" className="hint-line">
        {state.notice}
      </p>
    </>
  );
}
