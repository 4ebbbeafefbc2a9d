import { KeyManagement } from '../../../ui/account/KeyManagement';
import { SignInForm } from '../../../ui/account/SignInForm';
import { useAccount } from '../../../ui/account/useAccount';
import { ApiProvider } from '../../../ui/api/api-client';
import { NoticeLine } from '../../../ui/common/NoticeLine';
import { useManagedView } from '../../components/useManagedView';
import { useServerAccess } from '../../components/useServerAccess';
import { CatchmentSection } from './CatchmentSection';
import { ConnectionSettings } from './ConnectionSettings';
import { extensionApi } from './extension-api';
import { ManagedPolicy } from './ManagedPolicy';
import { useConnectionSettings } from './useConnectionSettings';
import { useSsoTab } from './useSsoTab';
import '../../../ui/ui.css';
import './options.css';

/** The options page, its server calls carried by the background. */
export function Options() {
  return (
    <ApiProvider value={extensionApi}>
      <OptionsPage />
    </ApiProvider>
  );
}

/**
 * Said to an owner or admin before the key's buttons: a dead key on one workstation is fixed by pasting the current
 * key there, not by a new one, which would stop every other workstation.
 */
function ReplaceKeyWarning() {
  return (
    <p className="key-warning" id="replace-key-warning">
      Regenerate the key only if it has leaked (and revoke it only to stop all use of it): either way the current key
      stops working at once on every workstation, and after a regenerate each one needs the new key pasted in its
      options (or set in the browser policy). A workstation whose badges say “Key invalid” needs the current key pasted
      there, not a new one.
    </p>
  );
}

/** Where the extension finds its server and key, and where a clinic manages its key. */
function OptionsPage() {
  const managed = useManagedView();
  const settings = useConnectionSettings(managed);
  // The account lives on the server the background talks to: the organisation's when its policy sets one.
  const account = useAccount(settings.serverUrlInUse);
  const access = useServerAccess(settings.managedServerUrl);
  const sso = useSsoTab(account);

  return (
    <main className="options">
      <h1>Telehealth disaster eligibility</h1>
      <ManagedPolicy view={managed} />
      <ConnectionSettings settings={settings} access={access} />
      <section aria-labelledby="account-heading">
        <h2 id="account-heading">Account and subscription</h2>
        {!account.signedInAs ? (
          <>
            <p className="hint">
              For an owner or admin of the clinic’s account: sign in to see the subscription and to make the clinic’s
              API key. Staff using this computer do not need to sign in.
            </p>
            <SignInForm account={account} sso={sso} serverSaved={settings.serverUrlInUse !== ''} />
          </>
        ) : (
          <div>
            <p>
              Signed in as <strong>{account.signedInAs}</strong>{' '}
              <button type="button" onClick={() => void account.signOut()} disabled={account.busy}>
                Sign out
              </button>
            </p>
            <NoticeLine notice={account.notice} />
            {account.manages && account.status?.key.status === 'active' && <ReplaceKeyWarning />}
            <KeyManagement
              account={account}
              browser={{
                savedApiKey: settings.savedApiKey,
                managedKey: settings.managedKey,
                onUseKey: settings.saveApiKey,
              }}
            />
          </div>
        )}
      </section>
      {/* Per account: another sign-in starts from that account's catchment. */}
      {account.signedInAs && <CatchmentSection key={account.signedInAs} readOnly={!account.manages} />}
    </main>
  );
}
