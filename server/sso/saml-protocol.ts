import { randomBytes } from 'node:crypto';
import type { SamlConfig } from '@node-saml/node-saml';
import { ContractError } from '../contract-error';
import { samlServiceProvider } from './sso-urls';
import type { SsoConnection } from './sso-directory';
import type { SsoFlowStore } from './sso-flow-store';
import { nodeSaml, type NodeSaml } from './sso-libraries';
import type { SsoProtocol } from './sso-protocol';

/** How long a person may take at their IdP between the AuthnRequest and the response. */
export const SAML_FLOW_TTL_MS = 10 * 60_000;

/** How far the IdP's clock may be from ours when its assertion's time window is checked. */
export const SAML_CLOCK_SKEW_MS = 60_000;

/** The NameID format that carries an e-mail address (SAML 2.0 core §8.3.2): the one asked for. */
export const EMAIL_NAME_ID_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

type SamlConnection = SsoConnection & { saml: NonNullable<SsoConnection['saml']> };

export function isSamlConnection(connection: SsoConnection): connection is SamlConnection {
  return connection.provider === 'saml' && connection.saml !== undefined;
}

/**
 * node-saml's settings for one organisation's IdP, as this service's SP for it: assertions must be signed with the
 * organisation's certificate (a signed response around an unsigned assertion is not enough — Entra ID, Okta and
 * Google sign the assertion by default, not always the response), name our entity ID as their audience, be inside
 * their time window give or take SAML_CLOCK_SKEW_MS, and answer a request we issued.
 */
export function samlConfig({ ValidateInResponseTo }: NodeSaml, connection: SamlConnection, origin: string): SamlConfig {
  const sp = samlServiceProvider(origin, connection.organisationId);
  return {
    idpCert: connection.saml.certificatePem,
    idpIssuer: connection.saml.idpEntityId,
    entryPoint: connection.saml.ssoUrl,
    issuer: sp.entity_id,
    audience: sp.entity_id,
    callbackUrl: sp.acs_url,
    identifierFormat: EMAIL_NAME_ID_FORMAT,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    // An IdP-initiated response (no InResponseTo) is refused: nothing would bind it to a sign-in someone started here.
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SAML_FLOW_TTL_MS,
    // Whatever IdP the practice runs decides how its people authenticate (MFA included): ask for no particular context.
    disableRequestedAuthnContext: true,
  };
}

/**
 * SAML 2.0 sign-in's start: an AuthnRequest to the organisation's IdP by the HTTP-Redirect binding, its ID kept in the
 * shared flow store (with the organisation and the return path) for SAML_FLOW_TTL_MS — the ACS takes it once.
 */
export class SamlProtocol implements SsoProtocol {
  readonly flowTtlMs = SAML_FLOW_TTL_MS;
  constructor(private readonly flows: SsoFlowStore) {}

  async begin(connection: SsoConnection, returnTo: string, origin: string, binding: string): Promise<URL> {
    if (!isSamlConnection(connection)) throw new ContractError('sso_misconfigured');
    // An xs:ID must not start with a digit; 160 random bits, as node-saml's own.
    const requestId = `_${randomBytes(20).toString('hex')}`;
    const library = await nodeSaml();
    const { ValidateInResponseTo } = library;
    const saml = new library.SAML({
      ...samlConfig(library, connection, origin),
      generateUniqueId: () => requestId,
      validateInResponseTo: ValidateInResponseTo.never,
    });
    let url: string;
    try {
      url = await saml.getAuthorizeUrlAsync('', undefined, {});
    } catch (err) {
      throw new ContractError('sso_misconfigured', { cause: err });
    }
    const { organisationId } = connection;
    await this.flows.put(requestId, { kind: 'saml', organisationId, requestId, returnTo, binding }, SAML_FLOW_TTL_MS);
    return new URL(url);
  }
}
