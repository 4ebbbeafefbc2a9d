import { failureWords, type ApiClient } from '../../../ui/api/api-client';
import type { AccountFailure } from '../../../ui/api/account-result';
import { sendMessage } from '../../common/messaging';

/**
 * The options page's words for failures whose server words carry status codes or API terms (the page is read at a
 * workstation, not only by IT); every other failure is said as every page says it.
 */
const OPTIONS_WORDS: Partial<Record<string, string>> = {
  unexpected_response: 'The server gave an unexpected answer. Check the Server URL.',
  not_found: 'This server does not answer as a disaster eligibility server. Check the Server URL.',
  server_error: 'The server had a problem. Try again; if it keeps happening, tell the clinic’s IT provider.',
  internal_error: 'The server had a problem. Try again; if it keeps happening, tell the clinic’s IT provider.',
  rate_limited: 'Too many attempts just now. Wait a little, then try again.',
  invalid_request: 'The server did not accept what was entered. Check it and try again.',
};

function describe(failure: AccountFailure): string {
  return (
    OPTIONS_WORDS[failure.code] ??
    failureWords(
      failure,
      `The server refused requests from this extension (${location.origin}). Ask whoever runs the server to allow this extension's origin.`,
    )
  );
}

/** The options page's server calls: each one a message to the background, which holds the server URL. */
export const extensionApi: ApiClient = {
  login: (credentials) => sendMessage('login', credentials),
  discoverSignIn: (email) => sendMessage('discoverSignIn', email),
  logout: () => sendMessage('logout'),
  session: () => sendMessage('session'),
  keyStatus: () => sendMessage('keyStatus'),
  generateKey: () => sendMessage('generateKey'),
  regenerateKey: () => sendMessage('regenerateKey'),
  revokeKey: () => sendMessage('revokeKey'),
  getCatchment: () => sendMessage('getCatchment'),
  saveCatchment: (postcodes) => sendMessage('saveCatchment', postcodes),
  catchmentCsv: () => sendMessage('catchmentCsv'),
  describe,
};
