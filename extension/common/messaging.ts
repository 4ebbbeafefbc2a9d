import { defineExtensionMessaging } from '@webext-core/messaging';
import type { SessionData } from '../../shared/api/auth';
import type { KeyStatusData, NewKeyData, RevokedKeyData } from '../../shared/api/keys';
import type { SsoDiscovery } from '../../shared/api/sso';
import type { AccountResult, CatchmentAnswer } from '../../ui/api/account-result';
import type { StoredAlerts } from './alerts-storage';
import type { AlertsCheck, ServerProbe } from './setup-answers';
import type { CheckOutcome } from '../../ui/result/outcome';

/** Why a selection the user asked to check (context menu) got no check: said in words where the selection is. */
export interface SelectionNotice {
  notice: 'no_postcode' | 'switched_off';
  text: string;
}

export const SELECTION_NOTICES = {
  no_postcode: { notice: 'no_postcode', text: 'No postcode in the selection' },
  switched_off: { notice: 'switched_off', text: 'The extension is switched off for this site' },
} as const satisfies Record<SelectionNotice['notice'], SelectionNotice>;

/**
 * The answer to "Check disaster eligibility" on selected text: the postcode the background found in the selection
 * and its check (the badges' own check), or a notice when there was nothing to check. `postcode` is null when the
 * selection had none.
 */
export interface SelectionResult {
  postcode: string | null;
  outcome: CheckOutcome | SelectionNotice;
}

/** What the content script does in its frame (answered by the background, which alone reads the settings). */
export interface SiteSwitches {
  /** Badges at all: the site is chosen (the policy's or the person's) and not switched off in the popup. */
  running: boolean;
  /** Badges on postcodes in the page's text too. */
  textOn: boolean;
}

/**
 * Every message between the extension's parts. The background service worker answers all of them: it is the only
 * part that talks to the server (`configChanged`, `switchesChanged` and `showSelectionResult` are the messages it
 * sends, to the tabs). Content scripts send only `check` (with only the postcode, and only from a chosen site),
 * `siteSwitches` and `openOptions`; the background refuses them every other message (background/message-senders.ts).
 */
export interface ProtocolMap {
  check(postcode: string): CheckOutcome;
  /** Background → content scripts: the server URL or key changed; badges showing a setup problem ask again. */
  configChanged(): void;
  /** Content script → background: its switches in the sender's frame, on a page of this site (the top page's origin). */
  siteSwitches(site: string): SiteSwitches;
  /** Background → content scripts: a site list or the policy changed; each asks for its switches again. */
  switchesChanged(): void;
  /**
   * Background → the content script of the frame where the user chose "Check disaster eligibility" on selected text:
   * show this result at the selection. The answer says whether it was shown (false: no selection to show it at).
   */
  showSelectionResult(result: SelectionResult): boolean;
  openOptions(): void;
  login(credentials: { email: string; password: string }): AccountResult<SessionData>;
  /** The options page's sign-in, first step: how this address signs in on the server in use (its start URL absolute). */
  discoverSignIn(email: string): AccountResult<SsoDiscovery>;
  logout(): AccountResult<null>;
  session(): AccountResult<SessionData>;
  keyStatus(): AccountResult<KeyStatusData>;
  generateKey(): AccountResult<NewKeyData>;
  regenerateKey(): AccountResult<NewKeyData>;
  revokeKey(): AccountResult<RevokedKeyData>;
  /** The options page's Catchment section, over the cookie session. */
  getCatchment(): AccountResult<CatchmentAnswer>;
  saveCatchment(postcodes: string[]): AccountResult<CatchmentAnswer>;
  /** The catchment as CSV text (the options page saves it as a file). */
  catchmentCsv(): AccountResult<string>;
  /**
   * The popup was opened: a failed alerts check is made again, then the alerts are seen and the count on the toolbar
   * icon goes. Answers the stored alerts.
   */
  alertsSeen(): StoredAlerts;
  /** The options page saved a server URL or key: the alerts are checked with it now, not at the next hourly alarm. */
  checkAlerts(): AlertsCheck;
  /** The options page, before it saves a server URL: does this server answer, and is it this service? */
  probeServer(serverUrl: string): ServerProbe;
}

export const { sendMessage, onMessage } = defineExtensionMessaging<ProtocolMap>();

/**
 * Asks the background to check a postcode (from a page or the popup). A background that cannot be reached (the
 * extension was updated or reloaded under the page) is answered as a server error, like any other failure: this
 * never rejects.
 */
export function checkThroughBackground(postcode: string): Promise<CheckOutcome> {
  return sendMessage('check', postcode).catch((): CheckOutcome => ({ ok: false, postcode, problem: 'server_error' }));
}
