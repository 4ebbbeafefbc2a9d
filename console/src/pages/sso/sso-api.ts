import { SSO_ENDPOINTS, type SsoSettingsRequest } from '../../../../shared/api/sso';
import type { ConsoleCalls } from '../../console-calls';

/** The Single sign-on page's calls: the organisation's settings, saving them whole, removing them. */
export const ssoApi = ({ signedIn }: ConsoleCalls) => ({
  ssoSettings: () => signedIn(SSO_ENDPOINTS.settings),
  saveSsoSettings: (body: SsoSettingsRequest) => signedIn(SSO_ENDPOINTS.saveSettings, { body }),
  removeSsoSettings: () => signedIn(SSO_ENDPOINTS.removeSettings),
});
