import { useLayoutEffect, useRef, useState } from 'react';
import { SSO_ERROR_PARAM, SSO_ERROR_WORDS, SsoErrorParam } from '../../shared/api/sso';

export type SsoRefusalWords = { title: string; text: string };

/** A refusal this console has no words for (a newer server's code): said without guessing why. */
const UNKNOWN_REFUSAL: SsoRefusalWords = {
  title: 'Single sign-on did not sign you in',
  text: 'Your organisation’s sign-in did not complete. Start again; if it keeps happening, ask your practice’s owner.',
};

/**
 * The words of a single sign-on that came back refused (`/console/?sso_error=<code>`), read once on arrival; the
 * parameter is then taken out of the address, so a reload or a bookmark does not say it again.
 */
export function useSsoRefusal(): SsoRefusalWords | null {
  const [words] = useState(() => {
    const code = new URLSearchParams(location.search).get(SSO_ERROR_PARAM);
    if (code === null) return null;
    const known = SsoErrorParam.safeParse(code);
    return known.success ? SSO_ERROR_WORDS[known.data] : UNKNOWN_REFUSAL;
  });
  // Before the words are drawn: the address never shows the code beside them.
  useLayoutEffect(() => {
    const url = new URL(location.href);
    if (!url.searchParams.has(SSO_ERROR_PARAM)) return;
    url.searchParams.delete(SSO_ERROR_PARAM);
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  }, []);
  return words;
}

/** The refusal as an alert that takes focus: it is why the person is back on this page. */
export function SsoRefusal({ words }: { words: SsoRefusalWords }) {
  const alert = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => alert.current?.focus(), []);
  return (
    <div className="notice error" role="alert" tabIndex={-1} ref={alert} data-testid="sso-error">
      <p>
        <strong>{words.title}</strong>
      </p>
      <p>{words.text}</p>
    </div>
  );
}
