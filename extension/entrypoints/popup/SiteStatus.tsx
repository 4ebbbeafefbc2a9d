import type { ReactNode } from 'react';
import { SET_BY_ORGANISATION } from '../../common/managed-settings';

export interface SiteStatusProps {
  site: string;
  /** The organisation's policy chose the site. */
  byPolicy: boolean;
  /** The person chose the site. */
  chosen: boolean;
  /** The browser lets the extension read the site's pages. */
  access: boolean;
  busy: boolean;
  onUse(): void;
  onStop(): void;
  /** The site's switches: shown only where the extension runs. */
  children: ReactNode;
}

function NotUsedOnSite({ site, busy, onUse }: Pick<SiteStatusProps, 'site' | 'busy' | 'onUse'>) {
  return (
    <>
      <p>
        The extension does not run on <span className="site-name">{site}</span>.
      </p>
      <p>
        <button type="button" onClick={onUse} disabled={busy} aria-describedby="use-site-hint">
          Use on this site
        </button>
      </p>
      <p id="use-site-hint" className="hint-line">
        The browser asks you to let the extension read this site’s pages: it looks for postcode fields and addresses.
      </p>
    </>
  );
}

/**
 * Whether the extension runs on the site, and the way to change it: the organisation's sites say so and offer
 * nothing (the policy decides), the person's own offer "Stop using on this site", any other "Use on this site".
 */
export function SiteStatus({ site, byPolicy, chosen, access, busy, onUse, onStop, children }: SiteStatusProps) {
  if (byPolicy && access) {
    return (
      <>
        <p className="hint-line">{SET_BY_ORGANISATION}: the extension runs on this site.</p>
        {children}
      </>
    );
  }
  if (byPolicy) {
    return <p>Your organisation chose this site, and this browser has not allowed the extension on it yet.</p>;
  }
  if (chosen && access) {
    return (
      <>
        {children}
        <p>
          <button type="button" onClick={onStop} disabled={busy}>
            Stop using on this site
          </button>
        </p>
      </>
    );
  }
  return <NotUsedOnSite site={site} busy={busy} onUse={onUse} />;
}
