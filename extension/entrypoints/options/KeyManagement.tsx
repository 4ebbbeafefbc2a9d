import { KeyStatusList } from './KeyStatusList';
import { NoticeLine } from './NoticeLine';
import type { Account } from './useAccount';
import { useKeyActions } from './useKeyActions';

export interface KeyManagementProps {
  account: Account;
  /** The key this browser uses, to say whether a revoke leaves it holding a dead key. */
  savedApiKey: string;
  /** The organisation's policy sets this browser's key: a new key cannot replace it here. */
  managedKey: boolean;
  /** "Use in this browser": saves a new key as this browser's key. */
  onUseKey(key: string): Promise<void>;
}

/**
 * The signed-in clinic's subscription and key: generate, regenerate or revoke (both after a confirmation), and a new
 * key shown once with Copy and "Use in this browser".
 */
export function KeyManagement({ account, savedApiKey, managedKey, onUseKey }: KeyManagementProps) {
  const keys = useKeyActions(account, managedKey ? null : savedApiKey, onUseKey);
  const { newKey, confirming, setConfirming, notice } = keys;
  const { status, busy } = account;
  const keyActive = status?.key.status === 'active';
  const subscriptionActive = status?.subscription.status === 'active';

  return (
    <>
      {status && <KeyStatusList status={status} />}
      {status && (
        <div className="actions">
          {!keyActive && (
            <button type="button" onClick={() => void keys.run('generateKey')} disabled={busy || !subscriptionActive}>
              Generate key
            </button>
          )}
          {keyActive && (
            <>
              <button type="button" onClick={() => setConfirming('regenerate')} disabled={busy}>
                Regenerate key
              </button>
              <button type="button" className="danger" onClick={() => setConfirming('revoke')} disabled={busy}>
                Revoke key
              </button>
            </>
          )}
          {!subscriptionActive && <p className="hint">The subscription is inactive: keys cannot be generated.</p>}
        </div>
      )}
      {confirming && (
        <div className="confirm" role="alertdialog" aria-labelledby="confirm-text">
          <p id="confirm-text">
            {confirming === 'revoke'
              ? `Revoke the key ${status?.key.key_prefix ?? ''}…? It stops working at once, everywhere it is used, and cannot be restored.`
              : `Regenerate the key? The current key ${status?.key.key_prefix ?? ''}… stops working at once, everywhere it is used.`}
          </p>
          <button
            type="button"
            className="danger"
            autoFocus
            onClick={() => void keys.run(confirming === 'revoke' ? 'revokeKey' : 'regenerateKey')}
          >
            {confirming === 'revoke' ? 'Yes, revoke' : 'Yes, regenerate'}
          </button>{' '}
          <button type="button" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      )}
      {newKey && (
        <div className="new-key" role="region" aria-labelledby="new-key-heading">
          <h3 id="new-key-heading">Your new key</h3>
          <p>
            Shown once: the server keeps only a hash of it.{' '}
            {managedKey ? 'Copy it now.' : 'Copy it now or use it in this browser.'}
          </p>
          <p>
            <code data-testid="new-key">{newKey.api_key}</code>
          </p>
          <button type="button" onClick={() => void keys.copyNewKey()}>
            Copy
          </button>{' '}
          <button
            type="button"
            onClick={() => void keys.adoptNewKey()}
            disabled={managedKey}
            aria-describedby={managedKey ? 'use-key-managed' : undefined}
          >
            Use in this browser
          </button>
          {managedKey && (
            // The policy's key would win over a key saved here anyway; saving one would only hide that.
            <p id="use-key-managed" className="hint">
              This browser uses the API key set by your organisation. To use the new key here, ask whoever manages the
              browser policy to set it there.
            </p>
          )}
        </div>
      )}
      <NoticeLine notice={notice} />
    </>
  );
}
