import { expect } from 'vitest';
import type { SsoSettingsRequest } from '../../../shared/api/sso';
import { signInAtIdp, startOidcIdp, type IdpUser, type TestIdp } from '../../helpers/oidc-idp';
import type { TestServer, TestServerOptions } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { ENCRYPTION_KEY, practice, type Practice } from './sso-world';

/** Microsoft's and Google's apps, as the operator registers them once. */
export const MICROSOFT_APP = { clientId: 'operator-microsoft-app', clientSecret: 'operator-microsoft-secret' };
export const GOOGLE_APP = { clientId: 'operator-google-app', clientSecret: 'operator-google-secret' };
export const TENANT = '11111111-1111-4111-8111-111111111111';
export const OTHER_TENANT = '22222222-2222-4222-8222-222222222222';

/** The callback as a provider sends the browser back to it. */
export const CALLBACK = '/api/v1/auth/sso/callback';

/** A server whose Microsoft and Google are the stand-ins given, and which can keep OIDC client secrets. */
export function ssoServerOptions(microsoft: TestIdp, google: TestIdp): TestServerOptions {
  return {
    config: {
      SSO_ENCRYPTION_KEY: ENCRYPTION_KEY,
      SSO_MICROSOFT_CLIENT_ID: MICROSOFT_APP.clientId,
      SSO_MICROSOFT_CLIENT_SECRET: MICROSOFT_APP.clientSecret,
      SSO_MICROSOFT_AUTHORITY: new URL(microsoft.issuer).origin,
      SSO_GOOGLE_CLIENT_ID: GOOGLE_APP.clientId,
      SSO_GOOGLE_CLIENT_SECRET: GOOGLE_APP.clientSecret,
      SSO_GOOGLE_ISSUER: google.issuer,
    },
  };
}

/** Microsoft's stand-in: its issuer at `/{tenant}/v2.0`, as Entra ID's tenant-specific one is. */
export const startMicrosoftIdp = () => startOidcIdp({ mountPath: `/${TENANT}/v2.0` });

let seq = 0;

/**
 * A practice whose owner set up single sign-on through the settings API (PUT /api/v1/organisation/sso), the
 * provider's client registered with the server's redirect URI.
 */
export async function ssoPractice(
  server: TestServer,
  connection: SsoSettingsRequest['connection'],
  options: { idp: TestIdp; client?: { clientId: string; clientSecret: string }; defaultRole?: 'member' | 'admin' },
): Promise<Practice> {
  const org = await practice(server);
  const client = options.client ?? {
    clientId: connection.provider === 'oidc' ? connection.client_id : '',
    clientSecret: connection.provider === 'oidc' ? connection.client_secret! : '',
  };
  await options.idp.register({ ...client, redirectUri: `${server.url}${CALLBACK}` });
  const google = connection.provider === 'google' ? { ...connection, domain: org.domain } : connection;
  const saved = await org.ownerClient.request('PUT', '/api/v1/organisation/sso', {
    body: { connection: google, domains: [org.domain], default_role: options.defaultRole ?? 'member' },
  });
  expect(saved.status, await saved.clone().text()).toBe(200);
  return org;
}

/** A generic OpenID Connect connection at `idp`, with a client of its own. */
export function oidcConnection(idp: TestIdp): SsoSettingsRequest['connection'] {
  seq++;
  return { provider: 'oidc', issuer: idp.issuer, client_id: `client-${seq}`, client_secret: `secret-${seq}-abcdef` };
}

/** A person at the provider: their login there and the claims it gives. */
export function personAt(idp: TestIdp, claims: IdpUser): string {
  const login = `person${++seq}`;
  idp.users.set(login, { email_verified: true, ...claims });
  return login;
}

/** A browser's start: the provider's authorization URL the start redirected to. */
export async function startAt(browser: SessionClient, email: string, returnTo?: string): Promise<string> {
  const query = new URLSearchParams({ email, ...(returnTo ? { return_to: returnTo } : {}) });
  const started = await browser.get(`/api/v1/auth/sso/start?${query}`, { origin: null });
  expect(started.status, await started.clone().text()).toBe(302);
  return started.headers.get('location')!;
}

/** Calls the callback URL the provider sent the browser to, on `server` (the path and query kept). */
export async function callbackOn(browser: SessionClient, callbackUrl: string): Promise<Response> {
  const url = new URL(callbackUrl);
  expect(url.pathname).toBe(CALLBACK);
  return browser.get(`${url.pathname}${url.search}`, { origin: null });
}

/** A whole sign-in: start, the provider's sign-in form, the callback. Returns the callback's answer. */
export async function signInThrough(server: TestServer, idp: TestIdp, email: string, login: string) {
  const browser = new SessionClient(server.url);
  const authorization = await startAt(browser, email);
  expect(new URL(authorization).origin).toBe(new URL(idp.issuer).origin);
  const answer = await callbackOn(browser, await signInAtIdp(authorization, login));
  return { browser, answer };
}

/** The console's words for a refusal: where the callback sent the browser. */
export const refusedTo = (code: string) => `/console/?sso_error=${code}`;

/** Who the browser is signed in as (null: nobody). */
export async function signedInAs(browser: SessionClient): Promise<string | null> {
  const session = await json<{ data: { account: { email: string } | null } }>(
    await browser.get('/api/v1/auth/session'),
  );
  return session.data.account?.email ?? null;
}

/** The organisation's last audit event. */
export async function lastEvent(server: TestServer, organisationId: string) {
  const events = await server.runtime.audit.read({ organisationId });
  return events.at(-1);
}
