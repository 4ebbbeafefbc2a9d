import { AUTH_ENDPOINTS } from '../../shared/api/auth';
import { KEY_ENDPOINTS } from '../../shared/api/keys';
import { callEndpoint } from './endpoint-call';
import type { Fetch } from './server-request';

/**
 * The account and key endpoints (sign-in, session and key generate/regenerate/revoke/status over the cookie session),
 * every answer and failure in words: the extension's background calls them for its options page, the console directly.
 */
export const accountApi = {
  /** The login answer's session is not relied on: the session is read back with `session` afterwards. */
  login: (f: Fetch, url: string, credentials: { email: string; password: string }) =>
    callEndpoint(f, url, AUTH_ENDPOINTS.login, { body: credentials }),
  logout: (f: Fetch, url: string) => callEndpoint(f, url, AUTH_ENDPOINTS.logout),
  session: (f: Fetch, url: string) => callEndpoint(f, url, AUTH_ENDPOINTS.session),
  keyStatus: (f: Fetch, url: string) => callEndpoint(f, url, KEY_ENDPOINTS.status),
  generateKey: (f: Fetch, url: string) => callEndpoint(f, url, KEY_ENDPOINTS.generate),
  regenerateKey: (f: Fetch, url: string) => callEndpoint(f, url, KEY_ENDPOINTS.regenerate),
  revokeKey: (f: Fetch, url: string) => callEndpoint(f, url, KEY_ENDPOINTS.revoke),
};
