import { useEffect } from 'react';
import type { KeyStatusData, NewKeyData } from '../../shared/api/keys';
import { KeyStatusList } from './KeyStatusList';
import { useLeaveWarning } from './leave-warning';
import { NoticeLine } from '../common/NoticeLine';
import type { Account } from './useAccount';
import { useKeyActions, type KeyAction, type KeyConfirmation } from './useKeyActions';

/** The extension's own key (the console has none). */
export interface BrowserKeyProps {
  /** The key this browser uses, to say whether a revoke leaves it holding a dead key. */
  savedApiKey: string;
  /** The organisation's policy sets this browser's key: a new key cannot replace it here. */
  managedKey: boolean;
  /** "Use in this browser": saves a new key as this browser's key. */
  onUseKey(key: string): Promise<void>;
}

export interface KeyManagementProps {
  account: Account;
  browser?: BrowserKeyProps;
}

interface KeyButtonsProps {
  status: KeyStatusData;
  busy: boolean;
  onGenerate(): void;
  onConfirm(action: KeyConfirmation): void;
}

/** Generate while there is no active key (and only on an active subscription); regenerate or revoke while there is. */
function KeyButtons({ status, busy, onGenerate, onConfirm }: KeyButtonsProps) {
  const keyActive = status.key.status === 'active';
  const subscriptionActive = status.subscription.status === 'active';
  return (
    <div className="actions">
      {!keyActive && (
        <button type="button" onClick={onGenerate} disabled={busy || !subscriptionActive}>
          Generate key
        </button>
      )}
      {keyActive && (
        <>
          <button type="button" onClick={() => onConfirm('regenerate')} disabled={busy}>
            Regenerate key
          </button>
          <button type="button" className="danger" onClick={() => onConfirm('revoke')} disabled={busy}>
            Revoke key
          </button>
        </>
      )}
      {!subscriptionActive && <p className="hint">The subscription is inactive: keys cannot be generated.</p>}
    </div>
  );
}

interface ConfirmKeyActionProps {
  confirming: KeyConfirmation;
  keyPrefix: string;
  onYes(): void;
  onCancel(): void;
}

function ConfirmKeyAction({ confirming, keyPrefix, onYes, onCancel }: ConfirmKeyActionProps) {
  return (
    <div className="confirm" role="alertdialog" aria-labelledby="confirm-text">
      <p id="confirm-text">
        {confirming === 'revoke'
          ? `Revoke the key ${keyPrefix}…? It stops working at once, everywhere it is used, and cannot be restored: ` +
            'nothing can check postcodes until a new key is generated.'
          : `Regenerate the key? The current key ${keyPrefix}… stops working at once: every workstation's ` +
            'extension and your practice software must then be given the new key.'}
      </p>
      <button type="button" className="danger" autoFocus onClick={onYes}>
        {confirming === 'revoke' ? 'Yes, revoke' : 'Yes, regenerate'}
      </button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

interface NewKeyProps {
  newKey: NewKeyData;
  browser: BrowserKeyProps | undefined;
  onCopy(): void;
  /** The key was selected and copied by hand. */
  onCopiedByHand(): void;
  onUse(): void;
}

/** "Use in this browser", where there is a browser key to replace. */
function UseInBrowser({ managedKey, onUse }: { managedKey: boolean; onUse(): void }) {
  return (
    <>
      {' '}
      <button
        type="button"
        onClick={onUse}
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
    </>
  );
}

/** The server shows a new key once and keeps only its hash: copied now, or made this browser's key. */
function NewKey({ newKey, browser, onCopy, onCopiedByHand, onUse }: NewKeyProps) {
  return (
    <div className="new-key" role="region" aria-labelledby="new-key-heading">
      <h3 id="new-key-heading">Your new key</h3>
      <p>
        Shown once: the server keeps only a hash of it.{' '}
        {!browser || browser.managedKey ? 'Copy it now' : 'Copy it now or use it in this browser'}, then put it in the
        extension&apos;s options on each workstation, or give it to your practice software&apos;s vendor.
      </p>
      <p>
        <code data-testid="new-key" onCopy={onCopiedByHand}>
          {newKey.api_key}
        </code>
      </p>
      <button type="button" onClick={onCopy}>
        Copy
      </button>
      {browser && <UseInBrowser managedKey={browser.managedKey} onUse={onUse} />}
    </div>
  );
}

const CONFIRMED: Record<KeyConfirmation, KeyAction> = { regenerate: 'regenerateKey', revoke: 'revokeKey' };

export const UNKEPT_KEY_WARNING =
  'The new API key has not been copied, and it is shown only once: if you leave this page it is lost, and the key ' +
  'would have to be regenerated. Leave anyway?';

/**
 * The status read again whenever the page is shown again (its tab or window back in front): "Last used" then says
 * what the checks made meanwhile, from the extension or the practice software, did.
 */
function useStatusWhenShown(loadStatus: () => Promise<void>) {
  useEffect(() => {
    const reread = () => {
      if (document.visibilityState === 'visible') void loadStatus();
    };
    window.addEventListener('focus', reread);
    document.addEventListener('visibilitychange', reread);
    return () => {
      window.removeEventListener('focus', reread);
      document.removeEventListener('visibilitychange', reread);
    };
  }, [loadStatus]);
}

/**
 * The signed-in clinic's subscription and key: generate, regenerate or revoke (both after a confirmation), and a new
 * key shown once with Copy (and, in the extension, "Use in this browser").
 */
export function KeyManagement({ account, browser }: KeyManagementProps) {
  const keys = useKeyActions(
    account,
    browser && { saved: browser.managedKey ? null : browser.savedApiKey, use: browser.onUseKey },
  );
  const { newKey, confirming, setConfirming } = keys;
  const { status, busy } = account;
  useStatusWhenShown(account.loadStatus);
  useLeaveWarning(keys.unkept ? UNKEPT_KEY_WARNING : null);
  if (!account.manages) {
    // Absent rather than disabled: a member has nothing to do here but read.
    return (
      <>
        {status && <KeyStatusList status={status} />}
        <p className="hint" data-testid="key-read-only">
          Your role ({account.membership?.role ?? 'member'}) shows the key&apos;s status only: an owner or admin of your
          team generates, regenerates and revokes it.
        </p>
        {/* A refusal that revealed the role changed (forbidden_role) stays said after the buttons go. */}
        <NoticeLine notice={keys.notice} />
      </>
    );
  }
  return (
    <>
      {status && <KeyStatusList status={status} />}
      {status && (
        <KeyButtons
          status={status}
          busy={busy}
          onGenerate={() => void keys.run('generateKey')}
          onConfirm={setConfirming}
        />
      )}
      {confirming && (
        <ConfirmKeyAction
          confirming={confirming}
          keyPrefix={status?.key.key_prefix ?? ''}
          onYes={() => void keys.run(CONFIRMED[confirming])}
          onCancel={() => setConfirming(null)}
        />
      )}
      {newKey && (
        <NewKey
          newKey={newKey}
          browser={browser}
          onCopy={() => void keys.copyNewKey()}
          onCopiedByHand={keys.keptByHand}
          onUse={() => void keys.adoptNewKey()}
        />
      )}
      <NoticeLine notice={keys.notice} />
    </>
  );
}
