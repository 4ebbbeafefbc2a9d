import { AUTH_ENDPOINTS } from '../../shared/api/auth';
import { KEY_ENDPOINTS } from '../../shared/api/keys';
import { SSO_ENDPOINTS } from '../../shared/api/sso';
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
  /**
   * How `email` signs in (password or single sign-on), its start URL made absolute on the server at `url` (empty: this
   * page's origin), so a page that opens it elsewhere (the extension's tab) goes to the same server.
   */
  discoverSignIn: async (f: Fetch, url: string, email: string) => {
    const result = await callEndpoint(f, url, SSO_ENDPOINTS.discover, { query: { email } });
    if (!result.ok || result.data.method !== 'sso') return result;
    return {
      ...result,
      data: { ...result.data, start_url: new URL(result.data.start_url, url || location.origin).href },
    };
  },
  logout: (f: Fetch, url: string) => callEndpoint(f, url, AUTH_ENDPOINTS.logout),
  session: (f: Fetch, url: string) => callEndpoint(f, url, AUTH_ENDPOINTS.session),
  keyStatus: (f: Fetch, url: string) => callEndpoint(f, url, KEY_ENDPOINTS.status),
  generateKey: (f: Fetch, url: string) => callEndpoint(f, url, KEY_ENDPOINTS.generate),
  regenerateKey: (f: Fetch, url: string) => callEndpoint(f, url, KEY_ENDPOINTS.regenerate),
  revokeKey: (f: Fetch, url: string) => callEndpoint(f, url, KEY_ENDPOINTS.revoke),
};
