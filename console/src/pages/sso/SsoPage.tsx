import type { SsoSettingsView } from '../../../../shared/api/sso';
import type { Account } from '../../../../ui/account/useAccount';
import { displayInstant } from '../../../../ui/common/display-dates';
import { NoticeLine } from '../../../../ui/common/NoticeLine';
import { Confirm } from '../../Confirm';
import { SsoForm } from './SsoForm';
import { useSsoSettings } from './useSsoSettings';
import { DEFAULT_ROLE_WORDS, PROVIDER_NAMES } from './sso-words';

function CurrentSettings({ settings }: { settings: SsoSettingsView | null }) {
  if (!settings) {
    return (
      <p data-testid="sso-current">Not set up: everyone signs in with the e-mail address and password they chose.</p>
    );
  }
  return (
    <dl className="status breaks" data-testid="sso-current">
      <dt>Provider</dt>
      <dd>{PROVIDER_NAMES[settings.connection.provider]}</dd>
      <dt>Domains</dt>
      <dd>{settings.domains.join(', ')}</dd>
      <dt>New people join as</dt>
      <dd>{DEFAULT_ROLE_WORDS[settings.default_role]}</dd>
      <dt>Passwords</dt>
      <dd>{settings.require_sso ? 'Owners only (single sign-on required)' : 'Still allowed'}</dd>
      <dt>Last changed</dt>
      <dd>
        {displayInstant(settings.updated_at)}
        {settings.updated_by ? ` by ${settings.updated_by}` : ''}
      </dd>
    </dl>
  );
}

/**
 * The organisation's single sign-on (owners only: the navigation lists it for them alone, and the server refuses
 * anyone else): what is set up, the form that sets it up or changes it, and removing it after a confirmation.
 */
export function SsoPage({ account }: { account: Account }) {
  const sso = useSsoSettings();
  const { result } = sso;
  if (!result) return <p className="hint">Loading single sign-on…</p>;
  if (!result.ok) return <NoticeLine notice={{ kind: 'error', text: sso.describe(result) }} />;
  const { settings } = result.data;
  return (
    <>
      <p>
        Your team signs in with the practice’s Microsoft 365, Google Workspace or other identity provider instead of a
        password of ours: when someone leaves and their account there is closed, they can no longer sign in here.
      </p>
      <section aria-labelledby="sso-current-heading">
        <h2 id="sso-current-heading">Now</h2>
        <CurrentSettings settings={settings} />
      </section>
      <section aria-labelledby="sso-form-heading">
        <h2 id="sso-form-heading">{settings ? 'Change single sign-on' : 'Set up single sign-on'}</h2>
        <SsoForm
          key={settings?.updated_at ?? 'none'}
          data={result.data}
          ownEmail={account.signedInAs}
          busy={sso.busy}
          onSave={(request) => void sso.save(request)}
          onProblem={(text) => sso.setNotice({ kind: 'error', text })}
        />
        <NoticeLine notice={sso.notice} />
      </section>
      {settings && (
        <section aria-labelledby="sso-remove-heading">
          <h2 id="sso-remove-heading">Remove single sign-on</h2>
          {sso.confirmingRemove ? (
            <Confirm
              id="sso-remove-text"
              yes="Yes, remove"
              onYes={() => void sso.remove()}
              onCancel={() => sso.setConfirmingRemove(false)}
            >
              Remove single sign-on? Everyone signs in with their password again (people who joined by single sign-on
              set one with a password-reset link), and the domains are released.
            </Confirm>
          ) : (
            <button type="button" className="danger" disabled={sso.busy} onClick={() => sso.setConfirmingRemove(true)}>
              Remove single sign-on
            </button>
          )}
        </section>
      )}
    </>
  );
}
