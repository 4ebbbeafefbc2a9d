import { z } from 'zod';
import { AlertsData } from '../../shared/api/alerts';
import { Health } from '../../shared/api/health';
import { NewWebhookData, WebhookData } from '../../shared/api/webhook';
import { accountApi, accountCall } from '../../ui/api/account-api';
import type { AccountResult } from '../../ui/api/account-result';
import { failureWords, type ApiClient } from '../../ui/api/api-client';
import { catchmentApi } from '../../ui/api/catchment-api';
import { sendRequest, type Fetch } from '../../ui/api/server-request';

/** Same origin: the paths alone, so the session cookie and the Origin rules apply as they do to any page of the site. */
const HERE = '';

/** The console's calls beyond the shared account and catchment ones. */
export interface ConsoleApi extends ApiClient {
  alerts(): Promise<AccountResult<AlertsData>>;
  webhook(): Promise<AccountResult<WebhookData>>;
  setWebhook(url: string): Promise<AccountResult<NewWebhookData>>;
  removeWebhook(): Promise<AccountResult<unknown>>;
  /** GET /healthz (no envelope): how fresh the disaster data is. Null when it could not be read. */
  health(): Promise<Health | null>;
}

/**
 * The console's server calls, on its own origin. Every answer is read with the shared zod schemas (a field added
 * later is ignored, not refused). An `unauthenticated` answer to any call means the session ended meanwhile (idle
 * timeout, sign-out in another tab): `onSessionEnded` lets the console go back to sign-in.
 */
export function consoleApi(onSessionEnded: () => void): ConsoleApi {
  const f: Fetch = (input, init) => fetch(input, init);
  const watched = <T>(call: Promise<AccountResult<T>>): Promise<AccountResult<T>> =>
    call.then((result) => {
      if (!result.ok && result.code === 'unauthenticated') onSessionEnded();
      return result;
    });
  return {
    async login(credentials) {
      const login = await accountApi.login(f, HERE, credentials);
      return login.ok ? accountApi.session(f, HERE) : login;
    },
    async logout() {
      const result = await accountApi.logout(f, HERE);
      return result.ok ? { ok: true, data: null } : result;
    },
    session: () => accountApi.session(f, HERE),
    keyStatus: () => watched(accountApi.keyStatus(f, HERE)),
    generateKey: () => watched(accountApi.generateKey(f, HERE)),
    regenerateKey: () => watched(accountApi.regenerateKey(f, HERE)),
    revokeKey: () => watched(accountApi.revokeKey(f, HERE)),
    getCatchment: () => watched(catchmentApi.get(f, HERE)),
    saveCatchment: (postcodes) => watched(catchmentApi.save(f, HERE, postcodes)),
    catchmentCsv: () => watched(catchmentApi.csv(f, HERE)),
    alerts: () => watched(accountCall(f, HERE, '/alerts', 'GET', AlertsData)),
    webhook: () => watched(accountCall(f, HERE, '/webhook', 'GET', WebhookData)),
    setWebhook: (url) => watched(accountCall(f, HERE, '/webhook', 'PUT', NewWebhookData, { url })),
    removeWebhook: () => watched(accountCall(f, HERE, '/webhook', 'DELETE', z.unknown())),
    async health() {
      const answer = await sendRequest(f, '/healthz', { method: 'GET' });
      const parsed = Health.safeParse(answer?.body);
      return parsed.success ? parsed.data : null;
    },
    describe: (failure) =>
      failureWords(
        failure,
        `The server refused this page's requests: its origin (${location.origin}) is not one the server is ` +
          'configured for. Open the console at the address in PUBLIC_URL, or ask whoever runs the server to add this one.',
      ),
  };
}
