import { useEffect, useState, type ReactNode } from 'react';
import { browser } from 'wxt/browser';
import {
  enabledSitesItem,
  policyCovers,
  policyOriginsLackingAccess,
  sitePermissionPattern,
} from '../../common/enabled-sites';
import {
  readManagedSettings,
  SET_BY_ORGANISATION,
  watchManagedSettings,
  type Managed,
} from '../../common/managed-settings';
import { sendSiteMessage } from '../../common/site-messages';

const POLICY_WAIT_MS = 1_500;

const hasPermission = (origin: string) => browser.permissions.contains({ origins: [origin] });

/**
 * Whether the extension runs on the site of the popup's tab, and the way to change it: "Use on this site" and "Stop
 * using on this site" for the person's own sites; "Set by your organisation" for the policy's. `children` (the
 * site's switches) are shown only where the extension runs.
 */
export function SiteAccess({ site, children }: { site: string; children: ReactNode }) {
  const [enabled, setEnabled] = useState<string[] | null>(null);
  const [policySites, setPolicySites] = useState<Managed<string[]> | undefined>(undefined);
  const [policyRead, setPolicyRead] = useState(false);
  const [access, setAccess] = useState<boolean | null>(null);
  const [lacking, setLacking] = useState<string[]>([]);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  // Bumped by every permission change (this popup's request, the background's removal, chrome://extensions).
  const [permissionsSeen, setPermissionsSeen] = useState(0);

  useEffect(() => {
    void enabledSitesItem.getValue().then(setEnabled);
    const unwatchEnabled = enabledSitesItem.watch((list) => setEnabled(list ?? []));
    void readManagedSettings(['sites']).then((managed) => {
      setPolicySites(managed.sites);
      setPolicyRead(true);
    });
    // The browser may take seconds to load the policy after a start: the person's own site is offered meanwhile.
    const policyLate = setTimeout(() => setPolicyRead(true), POLICY_WAIT_MS);
    const unwatchPolicy = watchManagedSettings(
      (managed) => {
        setPolicySites(managed.sites);
        setPolicyRead(true);
      },
      ['sites'],
    );
    const changed = () => setPermissionsSeen((n) => n + 1);
    browser.permissions.onAdded.addListener(changed);
    browser.permissions.onRemoved.addListener(changed);
    return () => {
      clearTimeout(policyLate);
      unwatchEnabled();
      unwatchPolicy();
      browser.permissions.onAdded.removeListener(changed);
      browser.permissions.onRemoved.removeListener(changed);
    };
  }, []);

  useEffect(() => {
    let live = true;
    void hasPermission(sitePermissionPattern(site))
      .catch(() => false)
      .then((granted) => live && setAccess(granted));
    void policyOriginsLackingAccess(policySites, hasPermission).then((origins) => live && setLacking(origins));
    return () => {
      live = false;
    };
  }, [site, policySites, permissionsSeen]);

  if (enabled === null || access === null || !policyRead) return null;

  const byPolicy = policyCovers(policySites, site);
  const chosen = enabled.includes(site);

  const onUse = () => {
    // Asked first and at once, while the click still counts as the person's: browsers prompt only from a click.
    const asked = browser.permissions.request({ origins: [sitePermissionPattern(site)] });
    // The background finishes the job when the permission arrives: the prompt may close this popup before `asked`
    // settles (Firefox always does), and nothing here would then run.
    void sendSiteMessage('useOnSite', site).catch(() => undefined);
    setBusy(true);
    setNotice('');
    void asked
      .then((granted) => {
        if (!granted) setNotice('The browser did not allow the extension on this site, so it does not run here.');
      })
      .catch(() => setNotice('The browser could not ask for this site.'))
      .finally(() => setBusy(false));
  };

  const onStop = () => {
    setBusy(true);
    setNotice('');
    void sendSiteMessage('stopOnSite', site)
      .catch(() => setNotice('Could not stop the extension on this site. Try again.'))
      .finally(() => setBusy(false));
  };

  // Chrome and Firefox let a policy install the extension but not grant it optional host access (no policy gives an
  // extension a site it declares optional), and declaring the sites required is impossible when each organisation
  // has its own. So the person allows them once per browser profile, in one prompt for all the policy's sites.
  const onAllowPolicySites = () => {
    setNotice('');
    void browser.permissions
      .request({ origins: lacking })
      .then((granted) => {
        if (!granted) setNotice('The browser did not allow the extension on your organisation’s sites.');
      })
      .catch(() => setNotice('The browser could not ask for your organisation’s sites.'));
  };

  let state: ReactNode;
  if (byPolicy && access) {
    state = (
      <>
        <p className="hint-line">{SET_BY_ORGANISATION}: the extension runs on this site.</p>
        {children}
      </>
    );
  } else if (byPolicy) {
    state = <p>Your organisation chose this site, and this browser has not allowed the extension on it yet.</p>;
  } else if (chosen && access) {
    state = (
      <>
        {children}
        <p>
          <button type="button" onClick={onStop} disabled={busy}>
            Stop using on this site
          </button>
        </p>
      </>
    );
  } else {
    state = (
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

  return (
    <>
      {state}
      {lacking.length > 0 && (
        <p>
          <button type="button" onClick={onAllowPolicySites}>
            Allow on your organisation’s sites
          </button>
        </p>
      )}
      <p role="status" className="hint-line">
        {notice}
      </p>
    </>
  );
}
