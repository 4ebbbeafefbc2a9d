import type { KeyStatusData } from '../../shared/api/keys';
import { lastAccessDayWords } from '../../shared/domain/paid-until';
import { displayInstant } from '../common/display-dates';

function when(iso: string | null): string {
  return iso ? displayInstant(iso) : '—';
}

function keyWords(key: KeyStatusData['key']): string {
  if (key.status === 'active') return `Active: ${key.key_prefix ?? ''}…`;
  if (key.status === 'revoked') return `Revoked${key.key_prefix ? `: ${key.key_prefix}…` : ''}`;
  return 'No key';
}

/** The subscription and the key as the server reports them (never the key itself). */
export function KeyStatusList({ status }: { status: KeyStatusData }) {
  return (
    <dl className="status" aria-label="Subscription and key status">
      <dt>Plan</dt>
      <dd>{status.subscription.plan}</dd>
      <dt>Subscription</dt>
      <dd data-testid="subscription-status">
        {status.subscription.status === 'active' ? 'Active' : 'Inactive'}
        {status.subscription.expires_at ? ` (paid until ${lastAccessDayWords(status.subscription.expires_at)})` : ''}
      </dd>
      <dt>Key</dt>
      <dd data-testid="key-status">{keyWords(status.key)}</dd>
      <dt>Created</dt>
      <dd>{when(status.key.created_at)}</dd>
      <dt>Last used</dt>
      <dd data-testid="key-last-used">{when(status.key.last_used_at)}</dd>
      <dt>Rate limit</dt>
      <dd>
        {status.rate_limit.limit} checks per {status.rate_limit.window_seconds} s
      </dd>
    </dl>
  );
}
