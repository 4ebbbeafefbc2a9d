import { useState } from 'react';
import { DEFAULT_ACTIVITY_LIMIT, MAX_ACTIVITY_LIMIT, type ActivityEvent } from '../../../../shared/api/activity';
import type { SsoProvider } from '../../../../shared/api/sso';
import { paidUntil } from '../../../../shared/domain/paid-until';
import { displayInstant } from '../../../../ui/common/display-dates';
import { ROLE_WORDS } from '../../role-words';
import { useConsoleApi, useLoad } from '../../use-load';

const key = (prefix: string | null) => (prefix ? `${prefix}…` : '');
const host = (e: ActivityEvent) => e.webhook_host ?? 'an address not recorded';
const postcodes = (count: number | null | undefined) =>
  count == null ? 'its postcodes' : `${count} postcode${count === 1 ? '' : 's'}`;

/** Why a subscription changed: what the operator, the console or Stripe did; else Stripe's own status. */
const SUBSCRIPTION_REASON_WORDS: Record<string, string> = {
  operator_override: 'set by the operator',
  billing_sync: 'brought in step with Stripe',
  checkout_completed: 'paid for in Stripe Checkout',
  past_due: 'a payment failed; Stripe is retrying',
  active: 'paid in Stripe',
  trialing: 'trial in Stripe',
  canceled: 'cancelled in Stripe',
  unpaid: 'unpaid: Stripe stopped retrying',
  incomplete: 'first payment not completed',
  incomplete_expired: 'first payment not completed',
  paused: 'paused in Stripe',
  stripe_subscription_missing: 'Stripe has no record of this subscription',
};

function subscriptionWords(e: ActivityEvent): string {
  const s = e.subscription;
  const what = s
    ? `Subscription ${s.status}` +
      (s.expires_at ? `, ${paidUntil(s.expires_at)}` : '') +
      `, ${s.rate_limit} checks a minute`
    : 'Subscription changed';
  const why = e.reason ? ` (${SUBSCRIPTION_REASON_WORDS[e.reason] ?? `Stripe status ${e.reason}`})` : '';
  return what + why;
}

/** Why an invitation was revoked without anyone revoking it: its sender was removed or demoted (issue #35). */
const REVOKED_BECAUSE: Readonly<Record<string, string>> = {
  inviter_removed: ' (whoever sent it was removed from the team)',
  inviter_role_changed: ' (whoever sent it may no longer invite that role)',
};

/** Why a reset asked for by e-mail was not sent. */
const NOT_SENT_BECAUSE: Readonly<Record<string, string>> = {
  mail_disabled: ' (not sent: no e-mail)',
  mail_limited: ' (not sent: this address had as many e-mails as it may get in an hour)',
};

/** The provider an SSO event names: for a practice's own, the kind of sign-in its IT provider will recognise. */
const SSO_PROVIDER_WORDS: Record<SsoProvider, string> = {
  microsoft: 'Microsoft',
  google: 'Google',
  oidc: 'the practice’s own sign-in (OpenID Connect)',
  saml: 'the practice’s own sign-in (SAML)',
};

/** Why a single sign-on was refused (the reason is the refusal's code). */
const SSO_REFUSED_WORDS: Readonly<Record<string, string>> = {
  sso_domain_not_claimed: 'no organisation here claims the e-mail domain',
  sso_wrong_tenant: 'wrong tenant',
  sso_wrong_domain: 'wrong Google Workspace domain',
  sso_email_unverified: 'e-mail address not verified',
  sso_email_not_in_domains: 'e-mail address outside the practice’s domains',
  sso_misconfigured: 'the settings did not work',
  sso_idp_unreachable: 'the sign-in provider could not be reached',
  sso_failed: 'interrupted, expired or already used',
  sso_cancelled: 'cancelled at the sign-in provider',
  sso_member_removed: 'removed from the team',
  sso_account_elsewhere: 'the address is a member of another organisation',
};

/** " (Microsoft)": the provider after an SSO event's words, when the trail names one. */
const withProvider = (e: ActivityEvent) => (e.sso_provider ? ` (${SSO_PROVIDER_WORDS[e.sso_provider]})` : '');

/** What happened, in words; a kind of event this console does not know yet is named by its code. */
export function activityWords(e: ActivityEvent): string {
  const member = e.member_email ?? 'a member';
  const role = e.role ? ROLE_WORDS[e.role].toLowerCase() : '';
  switch (e.event) {
    case 'account_created':
      return 'Account created';
    case 'login':
      return 'Signed in';
    case 'login_failed':
      return e.reason === 'sso_required'
        ? `Sign-in with a password refused: single sign-on is required${withProvider(e)}`
        : 'Sign-in refused (wrong password)';
    case 'logout':
      return 'Signed out';
    case 'key_generated':
      return `Generated the API key ${key(e.key_prefix)}`;
    case 'key_regenerated':
      return `Regenerated the API key: now ${key(e.key_prefix)}`;
    case 'key_revoked':
      return `Revoked the API key ${key(e.key_prefix)}`;
    case 'subscription_changed':
      return subscriptionWords(e);
    case 'email_verified':
      return 'Confirmed the e-mail address';
    case 'member_added':
      return `Added ${member} as ${role}`;
    case 'member_role_changed':
      return `Made ${member} ${role}`;
    case 'member_removed':
      return `Removed ${member} (${role})`;
    case 'invitation_created':
      return `Invited ${member} as ${role}`;
    case 'invitation_resent':
      return `Sent ${member} a new invitation link`;
    case 'invitation_revoked':
      return `Revoked the invitation of ${member}${REVOKED_BECAUSE[e.reason ?? ''] ?? ''}`;
    case 'invitation_accepted':
      return `Accepted the invitation and joined as ${role}`;
    case 'password_reset_requested':
      return e.actor === e.member_email
        ? `Asked for a password reset link by e-mail${NOT_SENT_BECAUSE[e.reason ?? ''] ?? ''}`
        : `Issued a password reset link for ${member}`;
    case 'password_reset':
      return 'Set a new password with a reset link';
    case 'catchment_saved':
      return `Saved the catchment: ${postcodes(e.postcode_count)}`;
    case 'webhook_set':
      return `Set the alerts webhook: alerts now go to ${host(e)}`;
    case 'webhook_replaced':
      return `Replaced the alerts webhook and its signing secret: alerts now go to ${host(e)}`;
    case 'webhook_removed':
      return `Removed the alerts webhook (it sent alerts to ${host(e)})`;
    case 'webhook_tested':
      return `Sent a test alert to the webhook at ${host(e)}`;
    case 'organisation_renamed':
      return `Renamed the organisation from “${e.previous_name ?? ''}” to “${e.organisation_name ?? ''}”`;
    case 'sso_sign_in':
      return e.sso_provider ? `Signed in with ${SSO_PROVIDER_WORDS[e.sso_provider]}` : 'Signed in with single sign-on';
    case 'sso_sign_in_refused':
      return `Refused single sign-on: ${SSO_REFUSED_WORDS[e.reason ?? ''] ?? e.reason ?? 'no reason recorded'}${withProvider(e)}`;
    case 'sso_joined':
      return `Joined by single sign-on${role ? ` as ${role}` : ''}${withProvider(e)}`;
    case 'sso_linked':
      return `Linked to single sign-on${withProvider(e)}`;
    case 'sso_settings_changed':
      return `Changed single sign-on settings${withProvider(e)}`;
    case 'sso_settings_removed':
      return `Removed single sign-on${withProvider(e)}`;
    case 'break_glass_sign_in':
      return 'Signed in with a password while single sign-on is required (break-glass)';
    default:
      return [e.event.replaceAll('_', ' '), e.member_email, role].filter(Boolean).join(' · ');
  }
}

function who(e: ActivityEvent): string {
  if (e.source === 'admin') return 'Operator (admin CLI)';
  if (e.source === 'stripe') return 'Stripe';
  return e.actor ?? '—';
}

function ActivityTable({ events }: { events: ActivityEvent[] }) {
  return (
    // Scrolled on its own, so reachable and scrollable from the keyboard too.
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Activity, newest first">
      <table className="catchment-table" data-testid="activity">
        <caption>Activity, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e, i) => (
            <tr key={`${e.at}:${i}`}>
              <td>
                <time dateTime={e.at}>{displayInstant(e.at)}</time>
              </td>
              <td>{who(e)}</td>
              <td>
                {activityWords(e)}
                {e.stripe_event_id && (
                  <>
                    {' '}
                    <span className="hint">
                      (Stripe event <code>{e.stripe_event_id}</code>)
                    </span>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The organisation's audit trail (owners and admins): who did what, to whom, when. */
export function ActivityPage() {
  const api = useConsoleApi();
  const [limit, setLimit] = useState(DEFAULT_ACTIVITY_LIMIT);
  const { result, reload } = useLoad((a) => a.activity(limit));
  if (!result) return <p className="hint">Loading the activity…</p>;
  if (!result.ok) {
    return (
      <p className="notice error" role="alert">
        Could not load the activity: {api.describe(result)}
      </p>
    );
  }
  const { events } = result.data;
  return (
    <>
      <p className="hint">
        Sign-ins (with a password or single sign-on), the API key, the team, the subscription, the catchment, the alerts
        webhook and single sign-on: who did what, and to whom. Client addresses are not shown; keys only by their first
        characters.
      </p>
      {events.length === 0 ? <p>No activity yet.</p> : <ActivityTable events={events} />}
      {events.length === limit && limit < MAX_ACTIVITY_LIMIT && (
        <div className="actions">
          <button
            type="button"
            onClick={() => {
              setLimit(MAX_ACTIVITY_LIMIT);
              reload();
            }}
          >
            Show up to {MAX_ACTIVITY_LIMIT} events
          </button>
        </div>
      )}
    </>
  );
}
