import { useEffect, useState } from 'react';
import type { Health } from '../../../shared/api/health';
import type { Account } from '../../../ui/account/useAccount';
import { displayInstant } from '../../../ui/common/display-dates';
import { Link } from '../router';
import { InactiveNotice } from './overview/InactiveNotice';
import { UsageSection } from './overview/UsageSection';
import { useConsoleApi } from '../use-load';

const DATA_STATUS_WORDS: Record<Health['data_status'], string> = {
  available: 'Up to date',
  stale: 'Out of date: the last successful refresh is more than 48 hours old',
  unavailable: 'Not available yet: no refresh has succeeded, so checks answer 503',
};

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
        {subscription.expires_at ? ` (expires ${displayInstant(subscription.expires_at)})` : ''}
      </dd>
      <dt>API key</dt>
      <dd>
        {key.status === 'active' ? `Active: ${key.key_prefix ?? ''}…` : key.status === 'revoked' ? 'Revoked' : 'None'} (
        <Link to="key">manage</Link>)
      </dd>
      <dt>Rate limit</dt>
      <dd>
        {rate_limit.limit} checks per {rate_limit.window_seconds} s
      </dd>
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

/** The subscription, how fresh the disaster data is, and the checks made with the keys and by hand. */
export function OverviewPage({ account }: { account: Account }) {
  const { loadStatus } = account;
  useEffect(() => {
    void loadStatus();
  }, [loadStatus]);
  return (
    <>
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
