import { useCallback, useEffect, useState } from 'react';
import type { Health } from '../../../../shared/api/health';
import type { KeyStatusData } from '../../../../shared/api/keys';
import type { Account } from '../../../../ui/account/useAccount';
import { displayInstant } from '../../../../ui/common/display-dates';
import { lastAccessDayWords } from '../../../../shared/domain/paid-until';
import { Link } from '../../router';
import { GettingStarted } from './GettingStarted';
import { InactiveNotice } from './InactiveNotice';
import { UsageSection } from './UsageSection';
import { useConsoleApi, useReloadOnFocus } from '../../use-load';

const DATA_STATUS_WORDS: Record<Health['data_status'], string> = {
  available: 'Up to date',
  stale: 'Out of date: the last successful refresh is more than 48 hours old',
  unavailable: 'Not available yet: no refresh has succeeded, so postcodes cannot be checked until one does',
};

/** "60 a minute": the plan's checks per window, for the practice as a whole. */
function checksAllowed({ limit, window_seconds }: KeyStatusData['rate_limit']): string {
  const per = window_seconds === 60 ? 'a minute' : `every ${window_seconds} seconds`;
  return `${limit} ${per}, for the whole practice`;
}

function Subscription({ account }: { account: Account }) {
  const status = account.status;
  if (!status) return <p className="hint">Loading the subscription…</p>;
  const { subscription, key, rate_limit } = status;
  return (
    <dl className="status">
      <dt>Plan</dt>
      <dd>{subscription.plan}</dd>
      <dt>Subscription</dt>
      <dd data-testid="overview-subscription">
        {subscription.status === 'active' ? 'Active' : 'Inactive'}
        {subscription.expires_at ? ` (paid until ${lastAccessDayWords(subscription.expires_at)})` : ''}
      </dd>
      <dt>API key</dt>
      <dd>
        {key.status === 'active' ? `Active: ${key.key_prefix ?? ''}…` : key.status === 'revoked' ? 'Revoked' : 'None'}
        {/* Members cannot change the key: no link to a page with nothing for them to do. */}
        {account.manages && (
          <>
            {' '}
            (<Link to="key">manage</Link>)
          </>
        )}
      </dd>
      <dt>Checks allowed</dt>
      <dd>{checksAllowed(rate_limit)}</dd>
    </dl>
  );
}

function DataFreshness() {
  const api = useConsoleApi();
  const [health, setHealth] = useState<Health | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void api.health().then((answer) => live && setHealth(answer));
    return () => {
      live = false;
    };
  }, [api]);
  if (health === undefined) return <p className="hint">Loading…</p>;
  if (health === null) return <p className="notice error">Could not read the data's status from the server.</p>;
  return (
    <dl className="status">
      <dt>Status</dt>
      <dd data-testid="overview-data-status">{DATA_STATUS_WORDS[health.data_status]}</dd>
      <dt>Last refresh</dt>
      <dd>{health.last_updated ? displayInstant(health.last_updated) : 'Never'}</dd>
      <dt>Source</dt>
      <dd>disasterassist.gov.au, refreshed daily</dd>
    </dl>
  );
}

/**
 * The subscription, how fresh the disaster data is, and the checks made with the keys and by hand; for owners and
 * admins first the steps left to set the practice up.
 */
export function OverviewPage({ account }: { account: Account }) {
  const { loadStatus } = account;
  const reloadStatus = useCallback(() => void loadStatus(), [loadStatus]);
  useEffect(reloadStatus, [reloadStatus]);
  // Back from setting up a workstation: the key's use (the extension's step) is read again.
  useReloadOnFocus(reloadStatus);
  return (
    <>
      {account.manages && <GettingStarted account={account} />}
      <section aria-labelledby="subscription-heading">
        <h2 id="subscription-heading">Subscription</h2>
        <Subscription account={account} />
        {account.status?.subscription.status === 'inactive' && <InactiveNotice />}
      </section>
      <section aria-labelledby="data-heading">
        <h2 id="data-heading">Disaster data</h2>
        <DataFreshness />
      </section>
      <UsageSection />
    </>
  );
}
