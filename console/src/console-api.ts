import { z } from 'zod';
import { ActivityData } from '../../shared/api/activity';
import { AlertsData } from '../../shared/api/alerts';
import { BILLING_ENDPOINTS, type BillingData, type BillingRedirectData } from '../../shared/api/billing';
import { Health } from '../../shared/api/health';
import {
  InvitationPreview,
  InvitationsData,
  NewInvitationData,
  ResetLinkData,
  ResetRequestedData,
  type InvitationPreview as Preview,
} from '../../shared/api/invitations';
import { EmailVerifiedData, SignupAcceptedData, SignupSettingsData, type SignupRequest } from '../../shared/api/signup';
import { TeamData, type Role } from '../../shared/api/team';
import { NewWebhookData, WebhookData, WebhookTestData } from '../../shared/api/webhook';
import { accountApi, accountCall } from '../../ui/api/account-api';
import type { AccountResult } from '../../ui/api/account-result';
import type { ApiClient } from '../../ui/api/api-client';
import { catchmentApi } from '../../ui/api/catchment-api';
import { callEndpoint } from '../../ui/api/endpoint-call';
import { sendRequest, type Fetch } from '../../ui/api/server-request';
import { consoleFailureWords } from './failure-words';

/** Same origin: the paths alone, so the session cookie and the Origin rules apply as they do to any page of the site. */
const HERE = '';

type Result<T> = Promise<AccountResult<T>>;

/** The console's calls beyond the shared account and catchment ones. */
export interface ConsoleApi extends ApiClient {
  alerts(): Result<AlertsData>;
  webhook(): Result<WebhookData>;
  setWebhook(url: string): Result<NewWebhookData>;
  removeWebhook(): Result<unknown>;
  /** POST /api/v1/webhook/test: one signed test delivery now, and how it went. */
  testWebhook(): Result<WebhookTestData>;
  /** GET /healthz (no envelope): how fresh the disaster data is. Null when it could not be read. */
  health(): Promise<Health | null>;
  team(): Result<TeamData>;
  renameOrganisation(name: string): Result<TeamData>;
  changeRole(accountId: string, role: Role): Result<TeamData>;
  removeMember(accountId: string): Result<TeamData>;
  resetLink(accountId: string): Result<ResetLinkData>;
  invitations(): Result<InvitationsData>;
  invite(email: string, role: Role): Result<NewInvitationData>;
  revokeInvitation(id: string): Result<unknown>;
  resendInvitation(id: string): Result<NewInvitationData>;
  activity(limit: number): Result<ActivityData>;
  /** The pages a link opens, signed out: what an invitation is for, accepting it, a password reset. */
  lookupInvitation(token: string): Result<Preview>;
  acceptInvitation(token: string, password: string): Result<unknown>;
  resetPassword(token: string, password: string): Result<unknown>;
  requestPasswordReset(email: string): Result<ResetRequestedData>;
  /** Sign-up (public): whether it is offered, creating an organisation, the e-mail link, and a new link on demand. */
  signupSettings(): Result<SignupSettingsData>;
  signup(request: SignupRequest): Result<SignupAcceptedData>;
  verifyEmail(token: string): Result<EmailVerifiedData>;
  /** 202 a new link (or none: no e-mail on this server); 200 when the address was confirmed meanwhile. */
  resendVerification(): Result<SignupAcceptedData | EmailVerifiedData>;
  billing(): Result<BillingData>;
  /** Where to send the browser: Stripe Checkout, or the Customer Portal. */
  checkout(): Result<BillingRedirectData>;
  billingPortal(): Result<BillingRedirectData>;
  /** Back from Checkout: the server reads the Checkout Session now rather than waiting for Stripe's webhook. */
  completeCheckout(sessionId: string): Result<BillingData>;
}

/** What the console is told of answers that say its picture of the session is out of date. */
export interface SessionWatch {
  /** `unauthenticated`: the session ended meanwhile (idle timeout, sign-out in another tab, removed from the team). */
  ended(): void;
  /** `forbidden_role`: the member's role changed meanwhile; the console reads it again and shows what it allows. */
  roleRefused(): void;
}

const member = (accountId: string) => `/team/members/${encodeURIComponent(accountId)}`;
const invitation = (id: string) => `/team/invitations/${encodeURIComponent(id)}`;

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
  const call = <T extends z.ZodType>(
    path: string,
    method: Parameters<typeof accountCall>[3],
    schema: T,
    body?: unknown,
  ) => watched(accountCall(f, HERE, path, method, schema, body));
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
    alerts: () => call('/alerts', 'GET', AlertsData),
    webhook: () => call('/webhook', 'GET', WebhookData),
    setWebhook: (url) => call('/webhook', 'PUT', NewWebhookData, { url }),
    removeWebhook: () => call('/webhook', 'DELETE', z.unknown()),
    testWebhook: () => call('/webhook/test', 'POST', WebhookTestData),
    async health() {
      const answer = await sendRequest(f, '/healthz', { method: 'GET' });
      const parsed = Health.safeParse(answer?.body);
      return parsed.success ? parsed.data : null;
    },
    team: () => call('/team', 'GET', TeamData),
    renameOrganisation: (name) => call('/team', 'PATCH', TeamData, { name }),
    changeRole: (accountId, role) => call(member(accountId), 'PATCH', TeamData, { role }),
    removeMember: (accountId) => call(member(accountId), 'DELETE', TeamData),
    resetLink: (accountId) => call(`${member(accountId)}/reset-link`, 'POST', ResetLinkData),
    invitations: () => call('/team/invitations', 'GET', InvitationsData),
    invite: (email, role) => call('/team/invitations', 'POST', NewInvitationData, { email, role }),
    revokeInvitation: (id) => call(invitation(id), 'DELETE', z.unknown()),
    resendInvitation: (id) => call(`${invitation(id)}/resend`, 'POST', NewInvitationData),
    activity: (limit) => call(`/activity?limit=${limit}`, 'GET', ActivityData),
    lookupInvitation: (token) => accountCall(f, HERE, '/invitations/lookup', 'POST', InvitationPreview, { token }),
    acceptInvitation: (token, password) =>
      accountCall(f, HERE, '/invitations/accept', 'POST', z.unknown(), { token, password }),
    resetPassword: (token, password) =>
      accountCall(f, HERE, '/auth/password-reset', 'POST', z.unknown(), { token, password }),
    requestPasswordReset: (email) =>
      accountCall(f, HERE, '/auth/password-reset/request', 'POST', ResetRequestedData, { email }),
    signupSettings: () => accountCall(f, HERE, '/signup', 'GET', SignupSettingsData),
    signup: (request) => accountCall(f, HERE, '/signup', 'POST', SignupAcceptedData, request),
    verifyEmail: (token) => accountCall(f, HERE, '/signup/verify-email', 'POST', EmailVerifiedData, { token }),
    resendVerification: () => call('/signup/verification', 'POST', z.union([SignupAcceptedData, EmailVerifiedData])),
    billing: () => watched(callEndpoint(f, HERE, BILLING_ENDPOINTS.view)),
    checkout: () => watched(callEndpoint(f, HERE, BILLING_ENDPOINTS.checkout)),
    billingPortal: () => watched(callEndpoint(f, HERE, BILLING_ENDPOINTS.portal)),
    completeCheckout: (sessionId) =>
      watched(callEndpoint(f, HERE, BILLING_ENDPOINTS.completeCheckout, { body: { session_id: sessionId } })),
    describe: (failure) =>
      consoleFailureWords(
        failure,
        `The server does not take requests from this page's address (${location.origin}): it is not one the ` +
          'server is configured for. Open the console at the address in PUBLIC_URL, or ask whoever runs the server to add this one.',
      ),
  };
}
