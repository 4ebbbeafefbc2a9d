import type * as client from 'openid-client';
import type { SsoErrorCode } from '../../shared/api/sso';
import type { Config } from '../config';
import type { SsoConnection, SsoDirectory } from './sso-directory';
import type { SsoFlow, SsoFlowStore } from './sso-flow-store';
import type { SsoProtocol } from './sso-protocol';
import { openidClient, type OpenidClient } from './sso-libraries';
import { SsoRefusal, type SsoIdentity, type SsoRefusalSubject } from './sso-sign-in';
import { LOOPBACK_NAMES } from './issuer-discovery';
import { oidcRedirectUri } from './sso-urls';
import { providerFetch } from './provider-fetch';

/** How long a person has at their provider between leaving and coming back. */
export const OIDC_FLOW_TTL_MS = 10 * 60_000;
/** A provider's discovery document (and its keys) is read again after this: keys rotate, configurations change. */
const DISCOVERY_TTL_MS = 5 * 60_000;
/** At most this many providers' configurations are kept: one per organisation's client at most. */
const MAX_DISCOVERED = 200;
/** Each request to a provider (discovery, token, keys), in seconds as openid-client counts. */
const REQUEST_TIMEOUT_SECONDS = 10;

export type OidcServerConfig = Pick<
  Config,
  | 'SSO_MICROSOFT_CLIENT_ID'
  | 'SSO_MICROSOFT_CLIENT_SECRET'
  | 'SSO_MICROSOFT_AUTHORITY'
  | 'SSO_GOOGLE_CLIENT_ID'
  | 'SSO_GOOGLE_CLIENT_SECRET'
  | 'SSO_GOOGLE_ISSUER'
>;

export interface OidcProtocolDeps {
  config: OidcServerConfig;
  flows: SsoFlowStore;
  directory: SsoDirectory;
  now?: () => number;
}

/** Which client of which issuer a connection signs in with. */
interface OidcClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** What the callback was given: the URL it was called at (the redirect URI with the provider's query). */
export interface OidcCallback {
  /** The public origin links use: the redirect URI's, as begin() sent it. */
  origin: string;
  /** The query string as it came (`?code=…&state=…&iss=…`). */
  search: string;
  state: string | undefined;
  error: string | undefined;
  /** Whether the request comes from the browser the flow was started in (its binding cookie's hash). */
  fromBrowserOf(binding: string): boolean;
}

/**
 * OpenID Connect sign-in (Microsoft Entra ID, Google Workspace, any OpenID Connect provider) with openid-client:
 * the authorization code flow with PKCE (S256), `state` (the flow's random id) and `nonce`, scope `openid email
 * profile`. openid-client checks the ID token's signature (the provider's JWKS), `iss`, `aud`, `exp`, `nonce` and the
 * authorization response's `state` and `iss`; this checks what is the organisation's own: Microsoft's `tid` is the
 * tenant the organisation named (its issuer is that tenant's already), Google's `hd` the Workspace domain. The
 * address must be verified: `email_verified`, or from Entra ID, which has no such claim, its optional `xms_edov` (the
 * e-mail domain is one the tenant verified) — the operator's app registration lists the optional claims `email` and
 * `xms_edov`.
 *
 * Discovery documents are kept a few minutes per issuer (bounded); a provider that cannot be read is
 * sso_idp_unreachable, never a 500. Every request to a provider gives up after 10 s.
 */
export class OidcProtocol implements SsoProtocol {
  readonly flowTtlMs = OIDC_FLOW_TTL_MS;
  /** Discovery documents by issuer. */
  private readonly discovered = new Map<string, { metadata: Promise<client.ServerMetadata>; until: number }>();
  private readonly now: () => number;

  constructor(private readonly deps: OidcProtocolDeps) {
    this.now = deps.now ?? Date.now;
  }

  async begin(connection: SsoConnection, returnTo: string, origin: string, binding: string): Promise<URL> {
    const configuration = await this.configuration(this.clientOf(connection));
    const openid = await openidClient();
    const state = openid.randomState();
    const nonce = openid.randomNonce();
    const codeVerifier = openid.randomPKCECodeVerifier();
    const { organisationId } = connection;
    const flow: SsoFlow = { kind: 'oidc', organisationId, codeVerifier, nonce, returnTo, binding };
    await this.deps.flows.put(state, flow, OIDC_FLOW_TTL_MS);
    return openid.buildAuthorizationUrl(configuration, {
      redirect_uri: oidcRedirectUri(origin),
      scope: 'openid email profile',
      response_type: 'code',
      state,
      nonce,
      code_challenge: await openid.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      // Google shows only the Workspace's accounts (a hint: the `hd` claim is what is checked).
      ...(connection.google ? { hd: connection.google.domain } : {}),
    });
  }

  /**
   * The provider's answer at the callback: the flow its `state` names is taken (once, on any instance: a replayed or
   * forged state finds none) and must have come back to the browser that started it (else the code is never
   * exchanged), the code exchanged and the ID token checked. Returns who signed in and where the
   * console goes back to; throws SsoRefusal (not yet recorded) otherwise.
   */
  async finish(callback: OidcCallback): Promise<{ identity: SsoIdentity; returnTo: string }> {
    const flow = callback.state ? await this.deps.flows.take(callback.state) : undefined;
    if (!flow || flow.kind !== 'oidc') throw new SsoRefusal('sso_failed');
    const connection = await this.deps.directory.forOrganisation(flow.organisationId);
    const about = { organisationId: flow.organisationId, provider: connection?.provider };
    if (!callback.fromBrowserOf(flow.binding)) throw new SsoRefusal('sso_failed', about);
    if (!connection || connection.provider === 'saml') throw new SsoRefusal('sso_failed', about);
    if (callback.error !== undefined) {
      throw new SsoRefusal(callback.error === 'access_denied' ? 'sso_cancelled' : 'sso_failed', about);
    }
    const configuration = await this.configuration(this.clientOf(connection), about);
    const openid = await openidClient();
    let claims: client.IDToken;
    try {
      const tokens = await openid.authorizationCodeGrant(
        configuration,
        new URL(`${oidcRedirectUri(callback.origin)}${callback.search}`),
        {
          expectedState: callback.state,
          expectedNonce: flow.nonce,
          pkceCodeVerifier: flow.codeVerifier,
          idTokenExpected: true,
        },
      );
      claims = tokens.claims()!;
    } catch (err) {
      throw new SsoRefusal(unreachable(openid, err) ? 'sso_idp_unreachable' : 'sso_failed', about, err);
    }
    const email = typeof claims.email === 'string' ? claims.email : undefined;
    const refusal = organisationClaimRefusal(connection, claims);
    if (refusal) throw new SsoRefusal(refusal, { ...about, email });
    if (!email) throw new SsoRefusal('sso_email_unverified', about);
    const emailVerified =
      isTrue(claims.email_verified) || (connection.provider === 'microsoft' && isTrue(claims.xms_edov));
    return { identity: { connection, email, emailVerified, provider: connection.provider }, returnTo: flow.returnTo };
  }

  /** The client a connection uses: the operator's app for Microsoft and Google, the organisation's own otherwise. */
  private clientOf(connection: SsoConnection): OidcClient {
    const { config } = this.deps;
    const misconfigured = () =>
      new SsoRefusal('sso_misconfigured', { organisationId: connection.organisationId, provider: connection.provider });
    switch (connection.provider) {
      case 'microsoft': {
        const tenantId = connection.microsoft?.tenantId;
        const { SSO_MICROSOFT_CLIENT_ID: clientId, SSO_MICROSOFT_CLIENT_SECRET: clientSecret } = config;
        if (!tenantId || !clientId || !clientSecret) throw misconfigured();
        // The tenant's own issuer: a token of any other tenant fails openid-client's `iss` check already.
        const authority = config.SSO_MICROSOFT_AUTHORITY.replace(/\/+$/, '');
        return { issuer: `${authority}/${encodeURIComponent(tenantId)}/v2.0`, clientId, clientSecret };
      }
      case 'google': {
        const { SSO_GOOGLE_CLIENT_ID: clientId, SSO_GOOGLE_CLIENT_SECRET: clientSecret } = config;
        if (!connection.google || !clientId || !clientSecret) throw misconfigured();
        return { issuer: config.SSO_GOOGLE_ISSUER, clientId, clientSecret };
      }
      case 'oidc':
        if (!connection.oidc) throw misconfigured();
        return connection.oidc;
      case 'saml':
        throw misconfigured();
    }
  }

  /**
   * The client's configuration over its issuer's discovery document, kept briefly (a failure is not kept: the next
   * sign-in tries again); unreadable: sso_idp_unreachable. Built for each use, with this server's clock: the ID
   * token's times are judged on it.
   */
  private async configuration(oidc: OidcClient, about: SsoRefusalSubject = {}): Promise<client.Configuration> {
    const now = this.now();
    let held = this.discovered.get(oidc.issuer);
    if (!held || held.until <= now) {
      for (const [k, entry] of this.discovered) if (entry.until <= now) this.discovered.delete(k);
      if (this.discovered.size >= MAX_DISCOVERED) this.discovered.delete(this.discovered.keys().next().value!);
      const discovered = discover(oidc);
      held = { metadata: discovered, until: now + DISCOVERY_TTL_MS };
      this.discovered.set(oidc.issuer, held);
      discovered.catch(() => this.discovered.delete(oidc.issuer));
    }
    let metadata: client.ServerMetadata;
    const openid = await openidClient();
    try {
      metadata = await held.metadata;
    } catch (err) {
      throw new SsoRefusal('sso_idp_unreachable', about, err);
    }
    const configuration = new openid.Configuration(metadata, oidc.clientId, {
      client_secret: oidc.clientSecret,
      [openid.clockSkew]: Math.round((now - Date.now()) / 1000),
    });
    configuration.timeout = REQUEST_TIMEOUT_SECONDS;
    if (insecureAllowed(oidc.issuer)) openid.allowInsecureRequests(configuration);
    else configuration[openid.customFetch] = guardedFetch;
    return configuration;
  }
}

/**
 * How a provider elsewhere than this machine is reached: never at a private or loopback address, whatever its name
 * resolves to now (provider-fetch.ts). One on loopback is the operator's own (the tests'), reached as it is.
 */
const guardedFetch = providerFetch();

/** Plain http only to a provider on this machine's loopback (the tests' oidc-provider); anywhere else https. */
function insecureAllowed(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && LOOPBACK_NAMES.has(url.hostname);
}

/** The issuer's discovery document, its `issuer` checked against the one asked for (openid-client). */
async function discover({ issuer, clientId }: OidcClient): Promise<client.ServerMetadata> {
  const openid = await openidClient();
  const loopback = insecureAllowed(issuer);
  const configuration = await openid.discovery(new URL(issuer), clientId, undefined, undefined, {
    timeout: REQUEST_TIMEOUT_SECONDS,
    execute: loopback ? [openid.allowInsecureRequests] : [],
    ...(loopback ? {} : { [openid.customFetch]: guardedFetch }),
  });
  return configuration.serverMetadata();
}

/** What the organisation itself requires of the token beyond its provider's checks: Microsoft's tenant, Google's domain. */
function organisationClaimRefusal(connection: SsoConnection, claims: client.IDToken): SsoErrorCode | undefined {
  if (connection.microsoft && claims.tid !== connection.microsoft.tenantId) return 'sso_wrong_tenant';
  if (connection.google && claims.hd !== connection.google.domain) return 'sso_wrong_domain';
  return undefined;
}

/** A boolean claim as providers send it: true, or (some of them) the string "true" or "1". */
const isTrue = (claim: unknown) => claim === true || claim === 'true' || claim === '1' || claim === 1;

/** Whether the provider could not be reached (or answered 5xx) rather than refusing what it was sent. */
function unreachable(openid: OpenidClient, err: unknown): boolean {
  if (err instanceof TypeError) return true; // fetch failed: refused, reset, no such host
  if (err instanceof openid.ClientError) {
    if (err.code === 'OAUTH_TIMEOUT' || err.code === 'OAUTH_ABORT') return true;
    const status = (err.cause as { status?: unknown } | undefined)?.status;
    return typeof status === 'number' && status >= 500;
  }
  return false;
}
