import { useEffect, useState } from 'react';
import { browser } from 'wxt/browser';
import { apiKeyProblem } from '../../common/api-key-check';
import type { ManagedView } from '../../common/managed-settings';
import { keepsKeyPrivate, normaliseServerUrl, originPattern } from '../../common/server-url';
import { apiKeyItem, serverUrlItem } from '../../common/settings';
import type { Notice } from '../../../ui/common/NoticeLine';
import type { AlertsCheck } from '../../common/setup-answers';
import { sendMessage } from '../../common/messaging';
import { CHECKING_SERVER, notSavedNotice, savedNotice } from './save-notice';

export type ConnectionSettings = ReturnType<typeof useConnectionSettings>;

const URL_PROBLEM = 'Enter the server address, starting with https:// (or http:// for a server on this computer).';
/** The policy's rule too (keepsKeyPrivate): over http the key would cross the network readable by anyone on it. */
const NOT_HTTPS_PROBLEM =
  "Use the server's https:// address: over http:// the clinic's API key would cross the network unencrypted (http:// is only for a server on this computer).";

/** A prompt the browser will not show (it throws outside a click) counts as a refusal. */
async function requestOriginAccess(url: string): Promise<boolean> {
  try {
    return await browser.permissions.request({ origins: [originPattern(url)] });
  } catch {
    return false;
  }
}

/** What is wrong with the form's values (`url` null: none given, or none needed when `urlNeeded` is false). */
function formProblem(url: string | null, urlNeeded: boolean, key: string): string | null {
  if (urlNeeded && !url) return URL_PROBLEM;
  if (url && !keepsKeyPrivate(url)) return NOT_HTTPS_PROBLEM;
  return key ? apiKeyProblem(key) : null;
}

const NOTHING_CHECKED: AlertsCheck = { checked: false };

/**
 * The alerts checked with the settings just saved (the popup would otherwise show the last hourly check's answer,
 * made without them); answers what the check found out. Never rejects.
 */
function checkAlertsNow(): Promise<AlertsCheck> {
  return sendMessage('checkAlerts').catch(() => NOTHING_CHECKED);
}

/** Where Save keeps what it saves (and shows it saved). */
interface ConnectionStore {
  serverUrl(url: string): Promise<void>;
  apiKey(key: string): Promise<void>;
}

/**
 * Save, once the form's values are well formed: `url` and `key` are null where the organisation's policy sets them.
 * Nothing is saved for a server that does not answer as this service; after saving, the alerts are checked with the
 * new settings, which also says whether the server takes the key. Answers the notice that says how it went.
 */
async function saveConnection(url: string | null, key: string | null, store: ConnectionStore): Promise<Notice> {
  // First, while the click still counts as the person's: the browser shows its prompt only then.
  const granted = url ? await requestOriginAccess(url) : true;
  // Without access the server cannot be asked: saved as before, and the notice says what is missing.
  if (url && granted) {
    const probe = await sendMessage('probeServer', url).catch(() => 'unreachable' as const);
    if (probe !== 'ok') return notSavedNotice(probe, url);
  }
  if (url) await store.serverUrl(url);
  if (key !== null) await store.apiKey(key);
  // Without a key (a URL saved to sign in first) there is nothing to check.
  const check = key === '' ? NOTHING_CHECKED : await checkAlertsNow();
  return savedNotice(granted, url, check);
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
  const [busy, setBusy] = useState(false);
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

  const storeApiKey = async (key: string) => {
    await apiKeyItem.setValue(key);
    setApiKey(key);
    setSavedApiKey(key);
  };

  /** Saves a new key from the account section ("Use in this browser"), shows it in the form, and checks alerts with it. */
  const saveApiKey = async (key: string) => {
    await storeApiKey(key);
    void checkAlertsNow();
  };

  /** Saves what the form holds (see saveConnection). Call it inside the click. */
  const save = async () => {
    const url = managedServerUrl ? null : normaliseServerUrl(serverUrl);
    const key = apiKey.trim();
    const problem = formProblem(url, !managedServerUrl, managedKey ? '' : key);
    if (problem) {
      setNotice({ kind: 'error', text: problem });
      return;
    }
    const store: ConnectionStore = {
      serverUrl: async (saved) => {
        await serverUrlItem.setValue(saved);
        setServerUrl(saved);
        setSavedServerUrl(saved);
      },
      apiKey: storeApiKey,
    };
    setBusy(true);
    // The last Save's words go at once: they are not this one's.
    setNotice(CHECKING_SERVER);
    try {
      setNotice(await saveConnection(url, managedKey ? null : key, store));
    } finally {
      setBusy(false);
    }
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
    /** Save is under way (asking the server): the button waits. */
    busy,
    save,
    saveApiKey,
  };
}
