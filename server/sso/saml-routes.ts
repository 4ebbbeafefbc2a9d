import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { SamlAcsForm, SSO_ENDPOINTS, SSO_ERROR_PARAM, SsoErrorCode, type SsoProvider } from '../../shared/api/sso';
import type { AuditRecorder } from '../audit/audit-log';
import type { SignInSession } from '../auth/sign-in';
import { promisify, startSession } from '../auth/session-view';
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
import { samlServiceProvider } from './sso-urls';
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
  completion: SsoCompletion;
  origins: OriginPolicy;
  /** Where the ACS's own refusals are written (the completion writes its own). */
  audit: AuditRecorder;
  logger: Pick<Logger, 'info'>;
}

/** SAML 2.0's two endpoints: the ACS an IdP posts its answer to, and the SP metadata an owner gives their IdP. */
export function samlRoutes(deps: SamlRoutesDeps): Route[] {
  return [acsRoute(deps), metadataRoute(deps)];
}

/** The console's sign-in page, telling the person in words why single sign-on did not sign them in. */
const refusedTo = (code: SsoErrorCode) => `/console/?${SSO_ERROR_PARAM}=${code}`;

function seeOther(res: Response, location: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, location);
}

const sessionOf = (req: Request): SignInSession => ({
  start: (account) => startSession(req, account.id),
  end: () => promisify((done) => req.session.destroy(done)),
});

/**
 * POST /api/v1/auth/sso/saml/acs. The IdP's page posts this form from its own site, so the cookie session runs here
 * without the Origin check (app.ts). That check keeps another site from using a signed-in browser's cookie; this
 * endpoint acts on nothing the cookie stands for: it starts a new session (a new id: no fixation) for whoever the
 * response names, and a response counts only when signed with the organisation's certificate, for its audience, in
 * answer to an AuthnRequest this service issued and that was not answered yet, with an assertion never seen before —
 * a forged, altered or replayed post signs nobody in. (As at any SAML SP that does not tie the request to the browser,
 * a person could hand their own unused response to someone else's browser and sign it in as themselves.)
 */
function acsRoute({ flows, directory, completion, origins, audit, logger }: SamlRoutesDeps): Route {
  const responses = new SamlResponseCheck(flows, directory);
  const receive: RequestHandler = async (req, res, next) => {
    const form = parseOrRefuse(SamlAcsForm, req.body, () => 'invalid_request');
    if (!form.ok) return next(form.refusal);
    const ip = clientAddress(req);
    const outcome = await responses.check(form.value.SAMLResponse, origins.linkOrigin(req));
    if (!outcome.ok) {
      const { code, organisationId, email, why } = outcome;
      logger.info({ organisation_id: organisationId, reason: code, why }, 'SAML response refused');
      await audit.record({
        event: 'sso_sign_in_refused',
        source: 'web',
        account_id: null,
        email: email ?? null,
        ...(organisationId === undefined ? {} : { organisation_id: organisationId }),
        ip,
        reason: code,
        sso_provider: 'saml',
      });
      return seeOther(res, refusedTo(code));
    }
    const { connection, email, flow } = outcome;
    try {
      await completion.complete({ connection, email, emailVerified: true, provider: 'saml' }, ip, sessionOf(req));
    } catch (err) {
      const code = err instanceof ContractError ? SsoErrorCode.safeParse(err.code) : undefined;
      if (!code?.success) return next(err);
      return seeOther(res, refusedTo(code.data));
    }
    seeOther(res, flow.returnTo);
  };
  return defineRoute({
    endpoint: SSO_ENDPOINTS.samlAcs,
    summary: "SAML 2.0 Assertion Consumer Service: the IdP's answer (HTTP-POST binding); 303 to the console",
    description: [
      `A form (${FORM_TYPE}, at most 256 kB) with \`SAMLResponse\` (base64) and an optional \`RelayState\`, posted by the`,
      'browser from the IdP. The response must answer an AuthnRequest this service issued in the last 10 minutes (its',
      "InResponseTo; each is answered once), and carry one assertion signed with the organisation's certificate, issued",
      'by its IdP entity ID, for its audience (its entity ID), within its time window (1 minute of clock skew), never',
      'seen before. Signed in: the cookie session starts and 303 leads back to the console. Refused: 303 to',
      `/console/?${SSO_ERROR_PARAM}=<code>, the refusal audited. No Origin check: the IdP's page posts it from another site, and`,
      'what it posts is accepted only when signed by the IdP and bound to a sign-in started here.',
    ].join(' '),
    security: NO_AUTH,
    bodyLimitBytes: SAML_FORM_LIMIT_BYTES,
    ok: { description: 'Unused: the answer is always a redirect' },
    responses: {
      303: { description: `To the console: the return path when signed in, else /console/?${SSO_ERROR_PARAM}=<code>` },
      400: errorResponse('invalid_request: no SAMLResponse, or not base64; invalid_body'),
      413: errorResponse('payload_too_large: the form is over 256 kB'),
      415: errorResponse(`unsupported_media_type: not ${FORM_TYPE}`),
    },
    handlers: [formBodyUpTo(SAML_FORM_LIMIT_BYTES), receive],
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
