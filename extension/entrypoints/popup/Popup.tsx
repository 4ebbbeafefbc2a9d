import { useCallback, useState } from 'react';
import { browser } from 'wxt/browser';
import { checkThroughBackground } from '../../common/messaging';
import type { CheckOutcome } from '../../../ui/result/outcome';
import { ResultView } from '../../../ui/result/ResultView';
import { useManagedView } from '../../components/useManagedView';
import { useServerAccess } from '../../components/useServerAccess';
import { ManagedNotice } from './ManagedNotice';
import { PostcodeForm } from './PostcodeForm';
import { RecentAlerts } from './RecentAlerts';
import { SiteAccess } from './SiteAccess';
import { SiteSwitches } from './SiteSwitches';
import { useCurrentSite, useSiteSwitches } from './useSiteSwitches';
import './popup.css';

/** A postcode checked through the background, and the same postcode checked again (a result's Retry). */
function usePostcodeCheck() {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<CheckOutcome | null>(null);

  const check = useCallback(async (value: string) => {
    setBusy(true);
    setOutcome(await checkThroughBackground(value));
    setBusy(false);
  }, []);

  const retry = useCallback(() => {
    if (outcome) void check(outcome.postcode);
  }, [outcome, check]);

  return { busy, outcome, check, retry };
}

export function Popup() {
  const managed = useManagedView();
  const access = useServerAccess(managed?.serverUrl?.ok ? managed.serverUrl.value : null);
  const { busy, outcome, check, retry } = usePostcodeCheck();
  const site = useCurrentSite();
  const switches = useSiteSwitches(site, managed);
  const openOptions = useCallback(() => void browser.runtime.openOptionsPage(), []);

  return (
    <main className="popup">
      <h1>Telehealth disaster eligibility</h1>
      <PostcodeForm busy={busy} onCheck={(value) => void check(value)} />
      {busy && <p role="status">Checking…</p>}
      {outcome && !busy && <ResultView outcome={outcome} onOpenOptions={openOptions} onRetry={retry} />}
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
