import { useEffect, useState } from 'react';
import { browser } from 'wxt/browser';
import { apiKeyProblem } from '../../common/api-key-check';
import { normaliseServerUrl, originPattern } from '../../common/server-url';
import { apiKeyItem, serverUrlItem } from '../../common/settings';
import type { Notice } from './NoticeLine';

export type ConnectionSettings = ReturnType<typeof useConnectionSettings>;

/**
 * The Server URL and API key: what the form holds and what is saved in this browser. Saving asks the browser for
 * access to the server's origin; a key saved elsewhere (the "Use in this browser" button) shows up here too.
 */
export function useConnectionSettings() {
  const [serverUrl, setServerUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [savedServerUrl, setSavedServerUrl] = useState('');
  const [savedApiKey, setSavedApiKey] = useState('');
  const [notice, setNotice] = useState<Notice>(null);

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

  /** Saves what the form holds. Call it inside the click: the browser shows its permission prompt only for one. */
  const save = async () => {
    const url = normaliseServerUrl(serverUrl);
    if (!url) {
      setNotice({
        kind: 'error',
        text: 'Enter the server address, starting with https:// (or http:// for a server on this computer or network).',
      });
      return;
    }
    const key = apiKey.trim();
    const problem = key ? apiKeyProblem(key) : null;
    if (problem) {
      setNotice({ kind: 'error', text: problem });
      return;
    }
    let granted = false;
    try {
      granted = await browser.permissions.request({ origins: [originPattern(url)] });
    } catch {
      granted = false;
    }
    await serverUrlItem.setValue(url);
    await apiKeyItem.setValue(key);
    setServerUrl(url);
    setApiKey(key);
    setSavedServerUrl(url);
    setSavedApiKey(key);
    setNotice(
      granted
        ? { kind: 'ok', text: 'Saved.' }
        : {
            kind: 'error',
            text: `Saved, but the browser did not allow access to ${new URL(url).host}. Badges will say "Allow server access in options" until you press Save again and allow it.`,
          },
    );
  };

  /** Saves a new key from the account section, and shows it in the form. */
  const saveApiKey = async (key: string) => {
    await apiKeyItem.setValue(key);
    setApiKey(key);
    setSavedApiKey(key);
  };

  return { serverUrl, setServerUrl, apiKey, setApiKey, savedServerUrl, savedApiKey, notice, save, saveApiKey };
}
