import { useCallback } from 'react';
import { browser } from 'wxt/browser';
import { useManagedView } from '../../components/useManagedView';
import { useServerAccess } from '../../components/useServerAccess';
import { ManagedNotice } from './ManagedNotice';
import { PostcodeCheck } from './PostcodeCheck';
import { RecentAlerts } from './RecentAlerts';
import { SiteAccess } from './SiteAccess';
import { SiteSwitches } from './SiteSwitches';
import { useCurrentSite, useSiteSwitches } from './useSiteSwitches';
import './popup.css';

export function Popup() {
  const managed = useManagedView();
  const access = useServerAccess(managed?.serverUrl?.ok ? managed.serverUrl.value : null);
  const site = useCurrentSite();
  const switches = useSiteSwitches(site, managed);
  const openOptions = useCallback(() => void browser.runtime.openOptionsPage(), []);

  return (
    <main className="popup">
      <h1>Telehealth disaster eligibility</h1>
      <PostcodeCheck onOpenOptions={openOptions} />
      <section className="site" aria-label="This site">
        {site === null ? (
          <p>The extension does not run on this page.</p>
        ) : (
          <SiteAccess site={site}>
            <SiteSwitches site={site} {...switches} />
          </SiteAccess>
        )}
      </section>
      <ManagedNotice view={managed} access={access} />
      <RecentAlerts switchedOff={managed?.alerts?.ok === true && !managed.alerts.value} />
      <p>
        <button type="button" className="link" onClick={openOptions}>
          Options
        </button>
      </p>
    </main>
  );
}
