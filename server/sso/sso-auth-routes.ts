import type { Request } from 'express';
import { SSO_ENDPOINTS, SSO_PROVIDER_LABELS, type SsoDiscovery, type SsoErrorCode } from '../../shared/api/sso';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { errorResponse, jsonResponse, NO_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import type { Logger } from '../logger';
import type { LoginThrottle } from '../auth/login-throttle';
import { signInSessionOf } from '../auth/session-view';
import type { OriginPolicy } from '../sessions/origin-policy';
import type { OidcProtocol } from './oidc-protocol';
import type { SamlProtocol } from './saml-protocol';
import { bindBrowser, browserBinding, isBoundBrowser, unbindBrowser } from './sso-binding';
import type { SsoConnection, SsoDirectory } from './sso-directory';
import type { SsoProtocol } from './sso-protocol';
import { SsoRefusal, type SsoSignInService } from './sso-sign-in';
import { wantsJson } from './sso-interruption';
import { consoleErrorPath } from './sso-urls';
import { domainOfEmail } from '../../shared/domain/sso-domain-claims';
import { ErrorEnvelope } from '../../shared/api/envelope';

/** The protocols the start route dispatches to: OpenID Connect for Microsoft, Google and OIDC; SAML for SAML. */
export interface SsoProtocols {
  /** Its callback finishes here too. */
  oidc: OidcProtocol;
  saml: SamlProtocol;
}

export interface SsoAuthRoutesDeps {
  directory: SsoDirectory;
  protocols: SsoProtocols;
  signIn: SsoSignInService;
  origins: OriginPolicy;
  /** Starts and callbacks per client address (sign-in's counter, in buckets of their own). */
  starts: LoginThrottle;
  callbacks: LoginThrottle;
  logger: Logger;
}

const DEFAULT_RETURN = '/console/';

/**
 * GET /api/v1/auth/sso/discover, /start and /callback: the e-mail-first step of sign-in, sending the browser to the
 * organisation's provider, and the OpenID Connect provider's answer (SAML's comes to its ACS). The callback ends in the
 * cookie session of a password sign-in, or at the console's sign-in page with `?sso_error=<code>`; never a token in
 * a URL or the log (the request log has no query strings).
 */
export function ssoAuthRoutes(deps: SsoAuthRoutesDeps): Route[] {
  return [discoverRoute(deps), startRoute(deps), callbackRoute(deps)];
}

function protocolOf(protocols: SsoProtocols, connection: SsoConnection): SsoProtocol {
  return connection.provider === 'saml' ? protocols.saml : protocols.oidc;
}

function discoverRoute({ directory }: SsoAuthRoutesDeps): Route {
  return defineRoute({
    endpoint: SSO_ENDPOINTS.discover,
    summary: 'How an e-mail address signs in: password or single sign-on',
    description:
      "Answers by the address's domain alone: `sso` when an organisation claims it (with the provider, the button's label and where to start), else `password`. Never says whether an account exists.",
    security: NO_AUTH,
    ok: 'How this address signs in',
    responses: { 400: errorResponse('invalid_request: not an e-mail address') },
    handle: async ({ query: { email } }, _req, res) => {
      const connection = await directory.forDomain(domainOfEmail(email));
      const data: SsoDiscovery = connection
        ? {
            method: 'sso',
            provider: connection.provider,
            label: SSO_PROVIDER_LABELS[connection.provider],
            start_url: `${SSO_ENDPOINTS.start.path}?${new URLSearchParams({ email })}`,
            password_allowed: !connection.requireSso,
          }
        : { method: 'password' };
      res.set('Cache-Control', 'no-store').json({ success: true, data });
    },
  });
}

/** Counts the request in `throttle` (per `key` and per address); refused: 429 with Retry-After. */
async function counted(throttle: LoginThrottle, key: string, req: Request): Promise<void> {
  const gate = await throttle.begin(key, clientAddress(req));
  if (!gate.ok) throw new ContractError('rate_limited', { retryAfterSeconds: gate.retryAfterSeconds });
  // Every start and callback counts, whatever comes of it: nothing is taken back.
  gate.attempt.failed();
}

function startRoute(deps: SsoAuthRoutesDeps): Route {
  const { directory, protocols, origins } = deps;
  return defineRoute({
    endpoint: { ...SSO_ENDPOINTS.start, status: 302 },
    summary: "Sends the browser to the organisation's identity provider",
    description:
      'For a browser (the sign-in page\'s "Continue with …"): 302 to the provider of the organisation that claims the address\'s domain, which comes back to the callback (OpenID Connect) or the ACS (SAML). Sets the `dte.sso` cookie (10 minutes, httpOnly, SameSite=Lax, path /api/v1/auth/sso) that binds the sign-in to this browser (a browser that holds one from a sign-in started in another tab keeps its value, so both can finish). A refusal sends a browser to `/console/?sso_error=<code>`, as does a start this service could not carry out (`sso_busy`: too many starts; `sso_unavailable`: its storage or session store out); a client that asks for JSON only (`Accept: application/json`) gets the error envelope instead. Starts are limited per address and per client address (browsers: `sso_busy`; JSON clients: 429 with Retry-After).',
    security: NO_AUTH,
    ok: {
      description: "Redirect to the identity provider's sign-in",
      headers: { Location: { schema: { type: 'string' }, description: "The provider's authorization URL" } },
    },
    responses: {
      303: {
        description:
          'A browser refused or interrupted (`Accept` not JSON): redirect to `/console/?sso_error=<code>` (a refusal, `sso_busy` or `sso_unavailable`)',
        headers: { Location: { schema: { type: 'string' } } },
      },
      400: errorResponse('invalid_request: not an e-mail address, or return_to not a console path'),
      404: jsonResponse(ErrorEnvelope, 'sso_domain_not_claimed (JSON clients)'),
      429: errorResponse('rate_limited (JSON clients): too many starts from this address; wait Retry-After seconds'),
      502: errorResponse("sso_idp_unreachable or sso_misconfigured (JSON clients): the provider's configuration"),
      503: errorResponse(
        'storage_unavailable, rate_limit_unavailable or session_unavailable (JSON clients): try again shortly',
      ),
    },
    handle: async ({ query: { email, return_to } }, req, res) => {
      res.set('Cache-Control', 'no-store');
      await counted(deps.starts, email, req);
      try {
        const connection = await directory.forDomain(domainOfEmail(email));
        if (!connection) throw new SsoRefusal('sso_domain_not_claimed');
        const binding = browserBinding(req);
        const protocol = protocolOf(protocols, connection);
        const location = await protocol.begin(
          connection,
          return_to ?? DEFAULT_RETURN,
          origins.linkOrigin(req),
          binding.hash,
        );
        bindBrowser(req, res, binding.value, protocol.flowTtlMs);
        res.redirect(302, location.href);
      } catch (err) {
        if (!(err instanceof ContractError) || !err.code.startsWith('sso_')) throw err;
        const refusal = err instanceof SsoRefusal ? err : new SsoRefusal(err.code as SsoErrorCode, {}, err);
        refusal.about.email ??= email;
        await record(refusal, clientAddress(req), deps);
        if (wantsJson(req)) throw refusal;
        res.redirect(303, consoleErrorPath(refusal.code));
      }
    },
  });
}

function callbackRoute(deps: SsoAuthRoutesDeps): Route {
  const { protocols, signIn, origins } = deps;
  return defineRoute({
    endpoint: { ...SSO_ENDPOINTS.callback, status: 303 },
    summary: 'The OpenID Connect redirect URI: signs in, then back to the console',
    description:
      "Where Microsoft, Google or the organisation's OpenID Connect provider sends the browser back. The `state` names a sign-in started here (used once, on any instance), in this browser (the `dte.sso` cookie the start set, cleared once signed in; another browser is refused `sso_failed` and the code is not redeemed); the code is exchanged and the ID token checked (signature, issuer, audience, expiry, nonce; Microsoft's tenant, Google's domain; a verified address in a claimed domain). Success: the session cookie, as a password sign-in sets it, and 303 to the console. Refused: 303 to `/console/?sso_error=<code>`, audited with the reason. Callbacks are limited per client address: over the limit, 303 to `/console/?sso_error=sso_busy`; this service's storage or session store out, `sso_unavailable`.",
    security: NO_AUTH,
    ok: {
      description: 'Signed in (sets `dte.sid`), or refused: redirect to the console (`?sso_error=<code>` when refused)',
      headers: { Location: { schema: { type: 'string' } } },
    },
    handle: async ({ query }, req, res) => {
      res.set('Cache-Control', 'no-store');
      await counted(deps.callbacks, query.state ?? clientAddress(req), req);
      const ip = clientAddress(req);
      const url = req.originalUrl;
      try {
        const { identity, returnTo } = await protocols.oidc.finish({
          origin: origins.linkOrigin(req),
          search: url.includes('?') ? url.slice(url.indexOf('?')) : '',
          state: query.state,
          error: query.error,
          fromBrowserOf: (binding) => isBoundBrowser(req, binding),
        });
        await signIn.complete(identity, ip, signInSessionOf(req));
        unbindBrowser(req, res);
        res.redirect(303, returnTo);
      } catch (err) {
        if (!(err instanceof SsoRefusal)) throw err;
        await record(err, ip, deps);
        res.redirect(303, consoleErrorPath(err.code));
      }
    },
  });
}

/** Records a refusal the protocol made (complete() records its own), and logs it for the operator. */
async function record(refusal: SsoRefusal, ip: string, { signIn, logger }: SsoAuthRoutesDeps): Promise<void> {
  if (!refusal.recorded) await signIn.recordRefusal(refusal, ip);
  refusal.recorded = true;
  // openid-client's words (an unreachable provider, a claim that did not match): never a token, never the request.
  const cause = refusal.cause instanceof Error ? refusal.cause.message : undefined;
  logger.info({ reason: refusal.code, organisation_id: refusal.about.organisationId, cause }, 'single sign-on refused');
}
