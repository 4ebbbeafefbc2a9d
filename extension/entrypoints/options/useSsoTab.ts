import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { browser } from 'wxt/browser';
import type { SsoOpener } from '../../../ui/account/SignInForm';
import type { Account } from '../../../ui/account/useAccount';
import type { Notice } from '../../../ui/common/NoticeLine';
import { parseHttpUrl } from '../../../ui/common/url';

/** How often the session is read while the sign-in tab is open, and for how long at most. */
export const SSO_POLL_MS = 2_000;
export const SSO_WATCH_MS = 10 * 60_000;

const FINISH_IN_TAB: Notice = {
  kind: 'ok',
  text: 'Finish signing in in the tab that opened. This page shows you signed in once you have.',
};
const GAVE_UP: Notice = {
  kind: 'error',
  text: 'The sign-in in the other tab did not finish here. If you signed in there, check that the Server URL is the address the console is opened at; otherwise start again.',
};

/**
 * The options page's single sign-on: the organisation's sign-in opens in a new tab (the server's start URL, which sends
 * the browser on to the provider and, signed in, to the console), and the page reads the session while that tab is
 * open (every SSO_POLL_MS, for SSO_WATCH_MS at most, and at once when the page gets focus back), so it shows the
 * person signed in once the tab's sign-in completes. The session is the server's cookie, which the tab and the
 * background's requests share. The tab is the person's to close; closing it ends the watch after a last read.
 */
export function useSsoTab(account: Account): SsoOpener {
  const { loadSession, signedInAs } = account;
  const [status, setStatus] = useState<Notice>(null);
  const stopWatch = useRef<(() => void) | null>(null);

  const stop = useCallback(() => {
    stopWatch.current?.();
    stopWatch.current = null;
  }, []);

  const open = useCallback(
    (startUrl: string) => {
      const url = parseHttpUrl(startUrl);
      if (!url) return;
      stop();
      const started = Date.now();
      let tabId: number | undefined;
      const read = () => void loadSession().catch(() => undefined);
      const timer = setInterval(() => {
        if (Date.now() - started < SSO_WATCH_MS) return read();
        stop();
        setStatus(GAVE_UP);
      }, SSO_POLL_MS);
      const onRemoved = (closed: number) => {
        if (closed !== tabId) return;
        stop();
        setStatus(null);
        read();
      };
      browser.tabs.onRemoved.addListener(onRemoved);
      window.addEventListener('focus', read);
      stopWatch.current = () => {
        clearInterval(timer);
        browser.tabs.onRemoved.removeListener(onRemoved);
        window.removeEventListener('focus', read);
      };
      setStatus(FINISH_IN_TAB);
      void browser.tabs.create({ url: url.href }).then(
        (tab) => void (tabId = tab.id),
        () => {
          stop();
          setStatus({ kind: 'error', text: 'The browser did not open the sign-in tab. Try again.' });
        },
      );
    },
    [loadSession, stop],
  );

  // Signed in (by the tab, or otherwise): nothing more to watch. The page's last render stops it too.
  useEffect(() => {
    if (signedInAs) stop();
  }, [signedInAs, stop]);
  useEffect(() => stop, [stop]);

  return useMemo(() => ({ open: (choice) => open(choice.start_url), status }), [open, status]);
}
