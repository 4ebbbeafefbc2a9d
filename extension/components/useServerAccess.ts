import { useCallback, useEffect, useState } from 'react';
import { browser } from 'wxt/browser';
import { originPattern } from '../common/server-url';

export interface ServerAccess {
  /** The origin asked for, as a person reads it (`https://eligibility.example.com.au`). */
  origin: string;
  /** Null while the browser is asked. */
  granted: boolean | null;
  /** Asks the browser: call inside a click, the only time it shows its prompt. */
  request(): Promise<void>;
}

/**
 * Whether the extension may reach `serverUrl`, and the one click that asks. For a server URL set by the organisation:
 * a policy cannot grant an optional host permission, so the person allows it once (the options page asks for a URL
 * the person saves when they save it). Loopback servers are required host permissions and are always granted.
 */
export function useServerAccess(serverUrl: string | null): ServerAccess | null {
  const [granted, setGranted] = useState<boolean | null>(null);
  const pattern = serverUrl ? originPattern(serverUrl) : null;

  useEffect(() => {
    if (!pattern) return;
    let live = true;
    const read = () =>
      void browser.permissions
        .contains({ origins: [pattern] })
        .catch(() => false)
        .then((yes) => live && setGranted(yes));
    read();
    // Granted or withdrawn elsewhere (another page's button, chrome://extensions): shown here too.
    browser.permissions.onAdded.addListener(read);
    browser.permissions.onRemoved.addListener(read);
    return () => {
      live = false;
      browser.permissions.onAdded.removeListener(read);
      browser.permissions.onRemoved.removeListener(read);
    };
  }, [pattern]);

  const request = useCallback(async () => {
    if (!pattern) return;
    try {
      setGranted(await browser.permissions.request({ origins: [pattern] }));
    } catch {
      setGranted(false);
    }
  }, [pattern]);

  if (!serverUrl || !pattern) return null;
  return { origin: new URL(serverUrl).origin, granted, request };
}
