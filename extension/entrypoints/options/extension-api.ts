import { failureWords, type ApiClient } from '../../../ui/api/api-client';
import { sendMessage } from '../../common/messaging';

/** The options page's server calls: each one a message to the background, which holds the server URL. */
export const extensionApi: ApiClient = {
  login: (credentials) => sendMessage('login', credentials),
  logout: () => sendMessage('logout'),
  session: () => sendMessage('session'),
  keyStatus: () => sendMessage('keyStatus'),
  generateKey: () => sendMessage('generateKey'),
  regenerateKey: () => sendMessage('regenerateKey'),
  revokeKey: () => sendMessage('revokeKey'),
  getCatchment: () => sendMessage('getCatchment'),
  saveCatchment: (postcodes) => sendMessage('saveCatchment', postcodes),
  catchmentCsv: () => sendMessage('catchmentCsv'),
  describe: (failure) =>
    failureWords(
      failure,
      `The server refused requests from this extension (${location.origin}). Ask whoever runs the server to allow this extension's origin.`,
    ),
};
