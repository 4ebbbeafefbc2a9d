import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { SamlAcsForm, SSO_ENDPOINTS, SSO_ERROR_PARAM, SsoErrorCode, type SsoProvider } from '../../shared/api/sso';
import type { AuditRecorder } from '../audit/audit-log';
import type { SignInSession } from '../auth/sign-in';
import { signInSessionOf } from '../auth/session-view';
import { ContractError } from '../contract-error';
import { clientAddress } from '../http/client-address';
import { FORM_TYPE, formBodyUpTo } from '../http/form-body';
import { errorResponse, NO_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { parseOrRefuse } from '../http/validate-request';
import type { Logger } from '../logger';
import type { OriginPolicy } from '../sessions/origin-policy';
import { EMAIL_NAME_ID_FORMAT, isSamlConnection } from './saml-protocol';
import { SamlResponseCheck } from './saml-response';
import { consoleErrorPath, samlServiceProvider } from './sso-urls';
import { nodeSaml } from './sso-libraries';
import { isBoundBrowser, unbindBrowser } from './sso-binding';
import type { SsoConnection, SsoDirectory } from './sso-directory';
import type { SsoFlowStore } from './sso-flow-store';

/** The largest IdP form read: a SAMLResponse is a few kB, up to tens with a certificate chain and many attributes. */
export const SAML_FORM_LIMIT_BYTES = 256 * 1024;

/** The end every single sign-on shares (SsoSignInService): refusals throw ContractError with their sso_* code. */
export interface SsoCompletion {
  complete(
    identity: { connection: SsoConnection; email: string; emailVerified: boolean; provider: SsoProvider },
    ip: string,
    session: SignInSession,
  ): Promise<unknown>;
}

export interface SamlRoutesDeps {
  flows: SsoFlowStore;
  directory: Pick<SsoDirectory, 'forOrganisation'>;
  origins: OriginPolicy;
  /** Where the ACS's and the finish's own refusals are written (the completion writes its own). */
  audit: AuditRecorder;
  logger: Pick<Logger, 'info'>;
}

export interface SamlFinishDeps extends Omit<SamlRoutesDeps, 'origins'> {
  completion: SsoCompletion;
}

/** SAML 2.0's two endpoints at the IdP's side: the ACS it posts its answer to, the SP metadata an owner gives it. */
export function samlRoutes(deps: SamlRoutesDeps): Route[] {
  return [acsRoute(deps), metadataRoute(deps)];
}

/** SAML's last step, in the browser that started (under the session's usual gates). */
export function samlFinishRoutes(deps: SamlFinishDeps): Route[] {
  return [finishRoute(deps)];
}

/** How long a response the ACS accepted waits for the browser at the finish: one redirect's time. */
export const SAML_RESULT_TTL_MS = 60_000;

function seeOther(res: Response, location: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, location);
}

interface Refusal {
  code: SsoErrorCode;
  organisationId?: string | undefined;
  email?: string | undefined;
  /** For the log: never shown to the person. */
  why: string;
}

/** Logs and audits a refusal of the ACS or the finish, and sends the browser to the console's words for it. */
async function refuse(
  { audit, logger }: Pick<SamlRoutesDeps, 'audit' | 'logger'>,
  req: Request,
  res: Response,
  { code, organisationId, email, why }: Refusal,
): Promise<void> {
  logger.info({ organisation_id: organisationId, reason: code, why }, 'SAML response refused');
  await audit.record({
    event: 'sso_sign_in_refused',
    source: 'web',
    account_id: null,
    email: email ?? null,
    ...(organisationId === undefined ? {} : { organisation_id: organisationId }),
    ip: clientAddress(req),
    reason: code,
    sso_provider: 'saml',
  });
  seeOther(res, consoleErrorPath(code));
}

/**
 * POST /api/v1/auth/sso/saml/acs. The IdP's page posts this form from its own site: no cookie session and no Origin
 * check here (app.ts), and no SameSite=Lax cookie either — the binding cookie (sso-binding.ts) that ties the sign-in to
 * the browser that started it is not sent on that post. So the ACS only checks the response: signed with the
 * organisation's certificate, for its audience, in answer to an AuthnRequest this service issued and that was not
 * answered yet, with an assertion never seen before. What it names waits under a one-time ticket for a minute, and
 * the browser is sent on to the finish (same site: the cookie comes), which signs in only the browser that started —
 * a response someone carried to another person's browser signs nobody in there.
 */
function acsRoute(deps: SamlRoutesDeps): Route {
  const { flows, directory, origins } = deps;
  const responses = new SamlResponseCheck(flows, directory);
  const receive: RequestHandler = async (req, res, next) => {
    const form = parseOrRefuse(SamlAcsForm, req.body, () => 'invalid_request');
    if (!form.ok) return next(form.refusal);
    const outcome = await responses.check(form.value.SAMLResponse, origins.linkOrigin(req));
    if (!outcome.ok) return refuse(deps, req, res, outcome);
    const { connection, email, flow } = outcome;
    const ticket = randomBytes(32).toString('base64url');
    const { organisationId } = connection;
    const result = {
      kind: 'saml_result',
      organisationId,
      email,
      returnTo: flow.returnTo,
      binding: flow.binding,
    } as const;
    await flows.put(ticket, result, SAML_RESULT_TTL_MS);
    seeOther(res, `${SSO_ENDPOINTS.samlFinish.path}?${new URLSearchParams({ ticket })}`);
  };
  return defineRoute({
    endpoint: SSO_ENDPOINTS.samlAcs,
    summary: "SAML 2.0 Assertion Consumer Service: the IdP's answer (HTTP-POST binding); 303 to the finish",
    description: [
      `A form (${FORM_TYPE}, at most 256 kB) with \`SAMLResponse\` (base64) and an optional \`RelayState\`, posted by the`,
      'browser from the IdP. The response must answer an AuthnRequest this service issued in the last 10 minutes (its',
      "InResponseTo; each is answered once), and carry one assertion signed with the organisation's certificate, issued",
      'by its IdP entity ID, for its audience (its entity ID), within its time window (1 minute of clock skew), never',
      `seen before. Accepted: 303 to ${SSO_ENDPOINTS.samlFinish.path}?ticket=… (one use, 1 minute), where the browser`,
      'that started the sign-in is signed in. Refused: 303 to',
      `/console/?${SSO_ERROR_PARAM}=<code>, the refusal audited (\`sso_unavailable\` when this service's storage is out). No Origin check: the IdP's page posts it from another site, and`,
      'what it posts is accepted only when signed by the IdP and bound to a sign-in started here.',
    ].join(' '),
    security: NO_AUTH,
    bodyLimitBytes: SAML_FORM_LIMIT_BYTES,
    ok: { description: 'Unused: the answer is always a redirect' },
    responses: {
      303: {
        description: `To ${SSO_ENDPOINTS.samlFinish.path} when accepted, else /console/?${SSO_ERROR_PARAM}=<code>`,
      },
      400: errorResponse('invalid_request: no SAMLResponse, or not base64; invalid_body'),
      413: errorResponse('payload_too_large: the form is over 256 kB'),
      415: errorResponse(`unsupported_media_type: not ${FORM_TYPE}`),
    },
    handlers: [formBodyUpTo(SAML_FORM_LIMIT_BYTES), receive],
  });
}

/**
 * GET /api/v1/auth/sso/saml/finish?ticket=…: the ACS's redirect, a same-site navigation, so the browser's binding
 * cookie comes with it. The ticket is taken once (on any instance); the browser must be the one that started the
 * sign-in; then the completion every single sign-on shares starts the session.
 */
function finishRoute(deps: SamlFinishDeps): Route {
  const { flows, directory, completion } = deps;
  return defineRoute({
    endpoint: { ...SSO_ENDPOINTS.samlFinish, status: 303 },
    summary: 'Signs in the browser that started a SAML sign-in, with the response the ACS accepted; 303 to the console',
    description:
      "Where the ACS sends the browser with a one-time ticket (1 minute) for the response it accepted. Signs in only the browser that started the sign-in (the `dte.sso` cookie the start set, cleared once signed in): the cookie session as a password sign-in sets it, and 303 to the return path. Refused (a ticket unknown, expired or used, another browser): 303 to `/console/?sso_error=sso_failed`, audited; this service's storage or session store out: 303 to `/console/?sso_error=sso_unavailable`.",
    security: NO_AUTH,
    ok: {
      description: 'Signed in (sets `dte.sid`), or refused: redirect to the console (`?sso_error=<code>` when refused)',
      headers: { Location: { schema: { type: 'string' } } },
    },
    handle: async ({ query: { ticket } }, req, res) => {
      const result = ticket ? await flows.take(ticket) : undefined;
      if (result?.kind !== 'saml_result') {
        return refuse(deps, req, res, {
          code: 'sso_failed',
          why: 'the ticket names no result (unknown, expired or used)',
        });
      }
      const { organisationId, email } = result;
      if (!isBoundBrowser(req, result.binding)) {
        return refuse(deps, req, res, {
          code: 'sso_failed',
          organisationId,
          email,
          why: 'not the browser that started',
        });
      }
      const connection = await directory.forOrganisation(organisationId);
      if (!connection || !isSamlConnection(connection)) {
        const why = 'the organisation has no SAML settings now';
        return refuse(deps, req, res, { code: 'sso_misconfigured', organisationId, email, why });
      }
      try {
        await completion.complete(
          { connection, email, emailVerified: true, provider: 'saml' },
          clientAddress(req),
          signInSessionOf(req),
        );
      } catch (err) {
        const code = err instanceof ContractError ? SsoErrorCode.safeParse(err.code) : undefined;
        if (!code?.success) throw err;
        return seeOther(res, consoleErrorPath(code.data));
      }
      unbindBrowser(req, res);
      seeOther(res, result.returnTo);
    },
  });
}

function metadataRoute({ directory, origins }: SamlRoutesDeps): Route {
  return defineRoute({
    endpoint: SSO_ENDPOINTS.samlMetadata,
    summary: "This service's SAML 2.0 SP metadata for one organisation: its entity ID and ACS, for the owner's IdP",
    security: NO_AUTH,
    ok: {
      description: 'SAML 2.0 metadata (an EntityDescriptor): entity ID, ACS (HTTP-POST), NameID format emailAddress',
      content: { 'application/samlmetadata+xml': { schema: z.string() } },
    },
    responses: { 404: errorResponse('sso_not_configured: the organisation does not sign in with SAML') },
    handle: async ({ params }, req, res) => {
      const connection = await directory.forOrganisation(params.organisation_id);
      if (!connection || !isSamlConnection(connection)) throw new ContractError('sso_not_configured');
      const sp = samlServiceProvider(origins.linkOrigin(req), connection.organisationId);
      const { generateServiceProviderMetadata } = await nodeSaml();
      const xml = generateServiceProviderMetadata({
        issuer: sp.entity_id,
        callbackUrl: sp.acs_url,
        identifierFormat: EMAIL_NAME_ID_FORMAT,
        wantAssertionsSigned: true,
      });
      res.setHeader('Cache-Control', 'no-cache');
      res.type('application/samlmetadata+xml').send(xml);
    },
  });
}
