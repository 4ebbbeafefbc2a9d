import { useState } from 'react';
import type { NewKeyData } from '../../shared/api/keys';
import { copyText } from '../common/clipboard';
import { useApi } from '../api/api-client';
import type { Notice } from '../common/NoticeLine';
import type { Account } from './useAccount';

export type KeyAction = 'generateKey' | 'regenerateKey' | 'revokeKey';

/**
 * The options page's own key: a new key can become it ("Use in this browser"), and a revoke may leave it dead. `saved`
 * is null while the organisation's policy sets the key: the page cannot tell whether a revoked key is that one. The
 * console has none.
 */
export interface BrowserKey {
  saved: string | null;
  use(key: string): Promise<void>;
}

function revokedWords(revokedPrefix: string | null, browserKey: BrowserKey | undefined): string {
  if (!browserKey) return 'Key revoked.';
  const { saved } = browserKey;
  if (revokedPrefix !== null && saved?.startsWith(revokedPrefix) === true) {
    return 'Key revoked. This browser still holds the revoked key, so badges will say "Key invalid" until a new key is generated and used here.';
  }
  return saved === null
    ? 'Key revoked. If it is the key your organisation set for this browser, badges will say "Key invalid" until the policy holds a new one.'
    : 'Key revoked.';
}

/** The key actions asked again before they run: both end the current key everywhere at once. */
export type KeyConfirmation = 'regenerate' | 'revoke';

/**
 * Generate, regenerate and revoke the clinic's key (the last two after a confirmation), and the new key, which the
 * server shows once: copied, or made this browser's key (`adoptNewKey`, the extension only).
 */
export function useKeyActions(account: Account, browserKey?: BrowserKey) {
  const api = useApi();
  const [newKey, setNewKey] = useState<NewKeyData | null>(null);
  /** The new key was copied or taken into this browser: leaving the page loses nothing. */
  const [kept, setKept] = useState(false);
  const [confirming, setConfirming] = useState<KeyConfirmation | null>(null);
  const [notice, setNotice] = useState<Notice>(null);

  const run = (action: KeyAction) => {
    setNotice(null);
    setConfirming(null);
    const revokedPrefix = account.status?.key.key_prefix ?? null;
    return account.whileBusy(async () => {
      if (action === 'revokeKey') {
        const result = await api.revokeKey();
        if (!result.ok) {
          setNotice({ kind: 'error', text: api.describe(result) });
        } else {
          setNewKey(null);
          setNotice({ kind: 'ok', text: revokedWords(revokedPrefix, browserKey) });
        }
      } else {
        const result = await (action === 'generateKey' ? api.generateKey() : api.regenerateKey());
        if (!result.ok) {
          setNotice({ kind: 'error', text: api.describe(result) });
        } else {
          setNewKey(result.data);
          setKept(false);
          setNotice(null);
        }
      }
      await account.loadStatus();
    });
  };

  const copyNewKey = async () => {
    if (!newKey) return;
    const copied = await copyText(newKey.api_key, document.body);
    if (copied) setKept(true);
    setNotice(
      copied
        ? { kind: 'ok', text: 'Key copied to the clipboard.' }
        : { kind: 'error', text: 'Could not copy: select the key and copy it by hand.' },
    );
  };

  const adoptNewKey = async () => {
    if (!newKey || !browserKey || browserKey.saved === null) return;
    await browserKey.use(newKey.api_key);
    setKept(true);
    setNotice({ kind: 'ok', text: 'This browser now uses the new key.' });
  };

  /** Copied by hand (selected and copied): as kept as with Copy. */
  const keptByHand = () => setKept(true);
  const unkept = newKey !== null && !kept;

  return { newKey, unkept, confirming, setConfirming, notice, run, copyNewKey, adoptNewKey, keptByHand };
}
