import { defineExtensionMessaging } from '@webext-core/messaging';
import type { SessionData } from '../../shared/api/auth';
import type { KeyStatusData, NewKeyData, RevokedKeyData } from '../../shared/api/keys';
import type { CheckOutcome } from './outcome';

/** An answer from the account endpoints, already in words for the options page. */
export type AccountResult<T> = { ok: true; data: T } | { ok: false; code: string; message: string; status?: number };

/**
 * Every message between the extension's parts. The background service worker answers all of them: it is the only
 * part that talks to the server (`configChanged` is the one message it sends, to the tabs). Content scripts send only
 * `check`, with only the postcode.
 */
export interface ProtocolMap {
  check(postcode: string): CheckOutcome;
  /** Background → content scripts: the server URL or key changed; badges showing a setup problem ask again. */
  configChanged(): void;
  openOptions(): void;
  login(credentials: { email: string; password: string }): AccountResult<SessionData>;
  logout(): AccountResult<null>;
  session(): AccountResult<SessionData>;
  keyStatus(): AccountResult<KeyStatusData>;
  generateKey(): AccountResult<NewKeyData>;
  regenerateKey(): AccountResult<NewKeyData>;
  revokeKey(): AccountResult<RevokedKeyData>;
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
