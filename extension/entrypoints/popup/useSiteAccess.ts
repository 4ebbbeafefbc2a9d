import { useEffect, useState } from 'react';
import { browser } from 'wxt/browser';
import {
  enabledSitesItem,
  policyCovers,
  policyOriginsLackingAccess,
  sitePermissionPattern,
} from '../../common/enabled-sites';
import {
  readManagedSettings,
  watchManagedSettings,
  type Managed,
  type ManagedSettings,
} from '../../common/managed-settings';
import { sendSiteMessage } from '../../common/site-messages';

const POLICY_WAIT_MS = 1_500;

const hasPermission = (origin: string) => browser.permissions.contains({ origins: [origin] });

/** The sites the person chose and the organisation's, kept current while the popup is open. */
function useSiteChoices() {
  const [enabled, setEnabled] = useState<string[] | null>(null);
  const [policySites, setPolicySites] = useState<Managed<string[]> | undefined>(undefined);
  const [policyRead, setPolicyRead] = useState(false);
  // Bumped by every permission change (this popup's request, the background's removal, chrome://extensions).
  const [permissionsSeen, setPermissionsSeen] = useState(0);

  useEffect(() => {
    void enabledSitesItem.getValue().then(setEnabled);
    const unwatchEnabled = enabledSitesItem.watch((list) => setEnabled(list ?? []));
    const showPolicy = (managed: ManagedSettings) => {
      setPolicySites(managed.sites);
      setPolicyRead(true);
    };
    void readManagedSettings(['sites']).then(showPolicy);
    // The browser may take seconds to load the policy after a start: the person's own site is offered meanwhile.
    const policyLate = setTimeout(() => setPolicyRead(true), POLICY_WAIT_MS);
    const unwatchPolicy = watchManagedSettings(showPolicy, ['sites']);
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

  return { enabled, policySites, policyRead, permissionsSeen };
}

/** Whether the extension may read `site`, and which of the organisation's sites it may not yet; read again on change. */
function useSitePermissions(site: string, policySites: Managed<string[]> | undefined, permissionsSeen: number) {
  const [access, setAccess] = useState<boolean | null>(null);
  const [lacking, setLacking] = useState<string[]>([]);

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

  return { access, lacking };
}

/** "Use on this site", "Stop using on this site" and "Allow on your organisation's sites", and how the last went. */
function useSiteActions(site: string, lacking: string[]) {
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);

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

  return { notice, busy, onUse, onStop, onAllowPolicySites };
}

/**
 * Whether the extension runs on `site` and why (the person chose it, or the organisation did), and the ways to change
 * it. Not `ready` until the choices, the policy (or its wait) and the site's access have been read.
 */
export function useSiteAccess(site: string) {
  const { enabled, policySites, policyRead, permissionsSeen } = useSiteChoices();
  const { access, lacking } = useSitePermissions(site, policySites, permissionsSeen);
  const actions = useSiteActions(site, lacking);
  return {
    ready: enabled !== null && access !== null && policyRead,
    byPolicy: policyCovers(policySites, site),
    chosen: enabled?.includes(site) === true,
    access: access === true,
    lacking,
    ...actions,
  };
}
