import type { AccountResult } from '../../ui/api/account-result';
import { accountApi } from '../../ui/api/account-api';
import type { ApiClient } from '../../ui/api/api-client';
import { catchmentApi } from '../../ui/api/catchment-api';
import { callEndpoint } from '../../ui/api/endpoint-call';
import type { Fetch } from '../../ui/api/server-request';
import { HERE, type ConsoleCalls } from './console-calls';
import { consoleFailureWords } from './failure-words';
import { linkApi } from './link-pages/link-api';
import { activityApi } from './pages/activity/activity-api';
import { alertsApi } from './pages/alerts/alerts-api';
import { billingApi } from './pages/billing/billing-api';
import { overviewApi } from './pages/overview/overview-api';
import { teamApi } from './pages/team/team-api';
import { webhookApi } from './pages/webhook/webhook-api';
import { ssoApi } from './pages/sso/sso-api';
import { signupApi } from './signup/signup-api';

/** The console's calls: the shared account and catchment ones, and each page group's own (beside its pages). */
export type ConsoleApi = ApiClient &
  ReturnType<typeof overviewApi> &
  ReturnType<typeof billingApi> &
  ReturnType<typeof teamApi> &
  ReturnType<typeof alertsApi> &
  ReturnType<typeof webhookApi> &
  ReturnType<typeof activityApi> &
  ReturnType<typeof signupApi> &
  ReturnType<typeof linkApi> &
  ReturnType<typeof ssoApi>;

/** What the console is told of answers that say its picture of the session is out of date. */
export interface SessionWatch {
  /** `unauthenticated`: the session ended meanwhile (idle timeout, sign-out in another tab, removed from the team). */
  ended(): void;
  /** `forbidden_role`: the member's role changed meanwhile; the console reads it again and shows what it allows. */
  roleRefused(): void;
}

/**
 * The console's server calls, on its own origin. Every answer is read with the shared zod schemas (a field added
 * later is ignored, not refused).
 */
export function consoleApi(watch: SessionWatch): ConsoleApi {
  const f: Fetch = (input, init) => fetch(input, init);
  const watched = <T>(call: Promise<AccountResult<T>>): Promise<AccountResult<T>> =>
    call.then((result) => {
      if (!result.ok && result.code === 'unauthenticated') watch.ended();
      if (!result.ok && result.code === 'forbidden_role') watch.roleRefused();
      return result;
    });
  const calls: ConsoleCalls = {
    signedIn: (endpoint, request) => watched(callEndpoint(f, HERE, endpoint, request)),
    signedOut: (endpoint, request) => callEndpoint(f, HERE, endpoint, request),
    fetch: f,
  };
  const account: ApiClient = {
    async login(credentials) {
      const login = await accountApi.login(f, HERE, credentials);
      return login.ok ? accountApi.session(f, HERE) : login;
    },
    discoverSignIn: (email) => accountApi.discoverSignIn(f, HERE, email),
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
    describe: (failure) =>
      consoleFailureWords(
        failure,
        `The server does not take requests from this page's address (${location.origin}): it is not one the ` +
          'server is configured for. Open the console at the address in PUBLIC_URL, or ask whoever runs the server to add this one.',
      ),
  };
  return {
    ...account,
    ...overviewApi(calls),
    ...billingApi(calls),
    ...teamApi(calls),
    ...alertsApi(calls),
    ...webhookApi(calls),
    ...activityApi(calls),
    ...signupApi(calls),
    ...linkApi(calls),
    ...ssoApi(calls),
  };
}
