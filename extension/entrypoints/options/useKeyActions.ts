import { useState } from 'react';
import type { NewKeyData } from '../../../shared/api/keys';
import { copyText } from '../../common/clipboard';
import { sendMessage } from '../../common/messaging';
import { accountMessage } from './account-message';
import type { Notice } from './NoticeLine';
import type { Account } from './useAccount';

export type KeyAction = 'generateKey' | 'regenerateKey' | 'revokeKey';

/** The key actions asked again before they run: both end the current key everywhere at once. */
export type KeyConfirmation = 'regenerate' | 'revoke';

/**
 * Generate, regenerate and revoke the clinic's key (the last two after a confirmation), and the new key, which the
 * server shows once: copied, or made this browser's key (`adoptNewKey`). `savedApiKey` is null while the
 * organisation's policy sets the key: this page cannot tell whether a revoked key is that one.
 */
export function useKeyActions(
  account: Account,
  savedApiKey: string | null,
  saveAsBrowserKey: (key: string) => Promise<void>,
) {
  const [newKey, setNewKey] = useState<NewKeyData | null>(null);
  const [confirming, setConfirming] = useState<KeyConfirmation | null>(null);
  const [notice, setNotice] = useState<Notice>(null);

  const run = (action: KeyAction) => {
    setNotice(null);
    setConfirming(null);
    const revokedPrefix = account.status?.key.key_prefix ?? null;
    return account.whileBusy(async () => {
      if (action === 'revokeKey') {
        const result = await sendMessage('revokeKey');
        if (!result.ok) {
          setNotice({ kind: 'error', text: accountMessage(result) });
        } else {
          setNewKey(null);
          const thisBrowser = revokedPrefix !== null && savedApiKey?.startsWith(revokedPrefix) === true;
          setNotice({
            kind: 'ok',
            text: thisBrowser
              ? 'Key revoked. This browser still holds the revoked key, so badges will say "Key invalid" until a new key is generated and used here.'
              : savedApiKey === null
                ? 'Key revoked. If it is the key your organisation set for this browser, badges will say "Key invalid" until the policy holds a new one.'
                : 'Key revoked.',
          });
        }
      } else {
        const result = await sendMessage(action);
        if (!result.ok) {
          setNotice({ kind: 'error', text: accountMessage(result) });
        } else {
          setNewKey(result.data);
          setNotice(null);
        }
      }
      await account.loadStatus();
    });
  };

  const copyNewKey = async () => {
    if (!newKey) return;
    setNotice(
      (await copyText(newKey.api_key, document.body))
        ? { kind: 'ok', text: 'Key copied to the clipboard.' }
        : { kind: 'error', text: 'Could not copy: select the key and copy it by hand.' },
    );
  };

  const adoptNewKey = async () => {
    if (!newKey || savedApiKey === null) return;
    await saveAsBrowserKey(newKey.api_key);
    setNotice({ kind: 'ok', text: 'This browser now uses the new key.' });
  };

  return { newKey, confirming, setConfirming, notice, run, copyNewKey, adoptNewKey };
}
