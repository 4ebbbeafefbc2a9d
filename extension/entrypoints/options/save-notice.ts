import type { AlertsCheck, ServerProbe } from '../../common/setup-answers';
import type { Notice } from '../../../ui/common/NoticeLine';

/** Said while Save asks the server whether it answers (and, with a key, whether it takes the key). */
export const CHECKING_SERVER: Notice = { kind: 'ok', text: 'Checking the server…' };

/** A server URL that did not answer as this service: nothing was saved, and the words say what to look at. */
export function notSavedNotice(probe: Exclude<ServerProbe, 'ok'>, url: string): Notice {
  const { host } = new URL(url);
  if (probe === 'unreachable') {
    return {
      kind: 'error',
      text: `Not saved: ${host} did not answer. Check the Server URL, and that this computer can reach the server (its network, VPN or proxy).`,
    };
  }
  if (probe === 'redirected') {
    return {
      kind: 'error',
      text: `Not saved: ${host} redirects elsewhere, and the extension does not follow a redirect with the clinic's key or a password. Enter the server's final address (ask the IT provider for it).`,
    };
  }
  return {
    kind: 'error',
    text: `Not saved: ${host} answered, but it is not a disaster eligibility server. Check the Server URL: it is the server's address as the practice manager or IT provider gave it, not the address of a web page.`,
  };
}

/**
 * After a Save: "Saved." only when nothing is known to stop the checks. Without the browser's access to the server
 * nothing could be asked (the badges then ask for it); with it, the alerts check that follows a Save shows whether the
 * server takes the key.
 */
export function savedNotice(granted: boolean, url: string | null, check: AlertsCheck): Notice {
  if (!granted && url) {
    return {
      kind: 'error',
      text: `Saved, but the browser did not allow access to ${new URL(url).host}. Badges will say "Allow server access in options" until you press Save again and allow it.`,
    };
  }
  const problem = check.checked ? check.problem : null;
  if (problem === 'invalid_key') {
    return {
      kind: 'error',
      text: 'Saved, but the server did not accept this API key: it is unknown, or a new key has replaced it. Ask the practice manager or IT for the current key.',
    };
  }
  if (problem === 'subscription_inactive') {
    return {
      kind: 'error',
      text: 'Saved, but the clinic’s subscription is inactive: the server answers no checks until it is renewed.',
    };
  }
  return { kind: 'ok', text: 'Saved.' };
}
