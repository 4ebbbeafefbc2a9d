import { useEffect, useState } from 'react';
import { browser } from 'wxt/browser';
import { apiKeyProblem } from '../../common/api-key-check';
import type { ManagedView } from '../../common/managed-settings';
import { normaliseServerUrl, originPattern } from '../../common/server-url';
import { apiKeyItem, serverUrlItem } from '../../common/settings';
import type { Notice } from '../../../ui/common/NoticeLine';

export type ConnectionSettings = ReturnType<typeof useConnectionSettings>;

const URL_PROBLEM =
  'Enter the server address, starting with https:// (or http:// for a server on this computer or network).';

/** A prompt the browser will not show (it throws outside a click) counts as a refusal. */
async function requestOriginAccess(url: string): Promise<boolean> {
  try {
    return await browser.permissions.request({ origins: [originPattern(url)] });
  } catch {
    return false;
  }
}

/** Saving goes ahead without access: the badges then say what is missing, and the next Save asks again. */
function savedNotice(granted: boolean, url: string | null): Notice {
  if (granted || !url) return { kind: 'ok', text: 'Saved.' };
  return {
    kind: 'error',
    text: `Saved, but the browser did not allow access to ${new URL(url).host}. Badges will say "Allow server access in options" until you press Save again and allow it.`,
  };
}

/**
 * The Server URL and API key: what the form holds and what is saved in this browser. Saving asks the browser for
 * access to the server's origin; a key saved elsewhere (the "Use in this browser" button) shows up here too.
 *
 * Where the organisation's policy sets a usable server URL or key (`managed`), that one is used and the form leaves
 * the person's own alone: it stays saved, unused, and applies again should the policy drop the setting.
 */
export function useConnectionSettings(managed: ManagedView | null) {
  const [serverUrl, setServerUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [savedServerUrl, setSavedServerUrl] = useState('');
  const [savedApiKey, setSavedApiKey] = useState('');
  const [notice, setNotice] = useState<Notice>(null);
  const managedServerUrl = managed?.serverUrl?.ok ? managed.serverUrl.value : null;
  const managedKey = managed?.apiKey?.ok === true;

  useEffect(() => {
    void (async () => {
      const [url, key] = await Promise.all([serverUrlItem.getValue(), apiKeyItem.getValue()]);
      setServerUrl(url);
      setSavedServerUrl(url);
      setApiKey(key);
      setSavedApiKey(key);
    })();
    return apiKeyItem.watch((key) => setSavedApiKey(key ?? ''));
  }, []);

  /** Saves a new key from the account section, and shows it in the form. */
  const saveApiKey = async (key: string) => {
    await apiKeyItem.setValue(key);
    setApiKey(key);
    setSavedApiKey(key);
  };

  /** Saves what the form holds. Call it inside the click: the browser shows its permission prompt only for one. */
  const save = async () => {
    const url = managedServerUrl ? null : normaliseServerUrl(serverUrl);
    const key = apiKey.trim();
    const problem = !managedServerUrl && !url ? URL_PROBLEM : !managedKey && key ? apiKeyProblem(key) : null;
    if (problem) {
      setNotice({ kind: 'error', text: problem });
      return;
    }
    let granted = true;
    if (url) {
      granted = await requestOriginAccess(url);
      await serverUrlItem.setValue(url);
      setServerUrl(url);
      setSavedServerUrl(url);
    }
    if (!managedKey) await saveApiKey(key);
    setNotice(savedNotice(granted, url));
  };

  return {
    serverUrl,
    setServerUrl,
    apiKey,
    setApiKey,
    savedServerUrl,
    savedApiKey,
    /** The organisation's server URL, when its policy sets a usable one. */
    managedServerUrl,
    /** Whether the organisation's policy sets a usable key (whose value this page never holds). */
    managedKey,
    /** The server the background talks to: the organisation's, or the one saved here. */
    serverUrlInUse: managedServerUrl ?? savedServerUrl,
    notice,
    save,
    saveApiKey,
  };
}
