import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { browser } from 'wxt/browser';
import { ResultView } from '../../components/ResultView';
import { pageTextOn } from '../../common/effective-settings';
import { SET_BY_ORGANISATION } from '../../common/managed-settings';
import { checkThroughBackground } from '../../common/messaging';
import type { CheckOutcome } from '../../common/outcome';
import { completePostcode } from '../../common/postcode';
import { disabledSitesItem, isDisabledFor, readOnlyOffSitesItem, toggleSite } from '../../common/settings';
import { currentSite } from '../../common/site';
import { useManagedView } from '../../components/useManagedView';
import { useServerAccess } from '../../components/useServerAccess';
import { ManagedNotice } from './ManagedNotice';
import { RecentAlerts } from './RecentAlerts';
import { SiteAccess } from './SiteAccess';
import './popup.css';

export function Popup() {
  const [postcode, setPostcode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<CheckOutcome | null>(null);
  const [site, setSite] = useState<string | null>(null);
  const [disabledSites, setDisabledSites] = useState<string[]>([]);
  const [readOnlyOffSites, setReadOnlyOffSites] = useState<string[]>([]);
  const managed = useManagedView();
  const access = useServerAccess(managed?.serverUrl?.ok ? managed.serverUrl.value : null);

  useEffect(() => {
    void currentSite()
      .then(setSite)
      .catch(() => setSite(null));
    void disabledSitesItem.getValue().then(setDisabledSites);
    void readOnlyOffSitesItem.getValue().then(setReadOnlyOffSites);
    const unwatchDisabled = disabledSitesItem.watch((list) => setDisabledSites(list ?? []));
    const unwatchReadOnly = readOnlyOffSitesItem.watch((list) => setReadOnlyOffSites(list ?? []));
    return () => {
      unwatchDisabled();
      unwatchReadOnly();
    };
  }, []);

  const check = useCallback(async (value: string) => {
    setBusy(true);
    setOutcome(await checkThroughBackground(value));
    setBusy(false);
  }, []);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const value = completePostcode(postcode);
    if (!value) {
      setError('Enter a 4-digit postcode.');
      return;
    }
    setError('');
    void check(value);
  };

  const openOptions = useCallback(() => void browser.runtime.openOptionsPage(), []);
  const retry = useCallback(() => {
    if (outcome) void check(outcome.postcode);
  }, [outcome, check]);

  const enabled = site !== null && !isDisabledFor(disabledSites, site);
  const onToggle = (next: boolean) => {
    if (site === null) return;
    // Shown at once; the storage watcher then confirms it (or brings another window's change).
    const list = toggleSite(disabledSites, site, next);
    setDisabledSites(list);
    void disabledSitesItem.setValue(list);
  };
  // The organisation's on/off, when its policy sets one, holds for every site: the switch shows it read-only.
  const pageTextManaged = managed?.pageText?.ok === true;
  const checksPageText = site !== null && pageTextOn(managed?.pageText, readOnlyOffSites, site);
  const onTogglePageText = (next: boolean) => {
    if (site === null) return;
    const list = toggleSite(readOnlyOffSites, site, next);
    setReadOnlyOffSites(list);
    void readOnlyOffSitesItem.setValue(list);
  };

  return (
    <main className="popup">
      <h1>Telehealth disaster eligibility</h1>
      <form onSubmit={onSubmit} noValidate>
        <label htmlFor="postcode">Postcode</label>
        <div className="row">
          <input
            id="postcode"
            name="postcode"
            inputMode="numeric"
            autoComplete="off"
            maxLength={4}
            value={postcode}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'postcode-error' : undefined}
            onChange={(e) => setPostcode(e.target.value)}
          />
          <button type="submit" disabled={busy}>
            Check
          </button>
        </div>
        {error && (
          <p id="postcode-error" className="error" role="alert">
            {error}
          </p>
        )}
      </form>
      {busy && <p role="status">Checking…</p>}
      {outcome && !busy && <ResultView outcome={outcome} onOpenOptions={openOptions} onRetry={retry} />}
      <section className="site" aria-label="This site">
        {site === null ? (
          <p>The extension does not run on this page.</p>
        ) : (
          <SiteAccess site={site}>
            <label className="switch">
              <input type="checkbox" role="switch" checked={enabled} onChange={(e) => onToggle(e.target.checked)} />
              Enabled on this site
              <span className="site-name">{site}</span>
            </label>
            {/* Addresses shown as text on the page; postcode fields keep their badges either way. */}
            <label className="switch">
              <input
                type="checkbox"
                role="switch"
                checked={checksPageText}
                disabled={!enabled || pageTextManaged}
                aria-describedby="page-text-hint"
                onChange={(e) => onTogglePageText(e.target.checked)}
              />
              Check postcodes in page text on this site
            </label>
            <p id="page-text-hint" className="hint">
              {pageTextManaged && <span className="managed-mark">{SET_BY_ORGANISATION}. </span>}
              When off, only postcode fields get badges on this site.
            </p>
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
