import type { CacheProvider, Profile } from '@node-saml/node-saml';
import type { SsoErrorCode } from '../../shared/api/sso';
import { EmailAddress } from '../../shared/api/text-fields';
import { EMAIL_NAME_ID_FORMAT, isSamlConnection, SAML_CLOCK_SKEW_MS, samlConfig } from './saml-protocol';
import type { SsoConnection, SsoDirectory } from './sso-directory';
import { nodeSaml, nodeSamlXml } from './sso-libraries';
import type { SsoFlow, SsoFlowStore } from './sso-flow-store';

type SamlFlow = Extract<SsoFlow, { kind: 'saml' }>;

/** Who a valid response says signed in, for which organisation and flow. */
export interface SamlIdentity {
  flow: SamlFlow;
  connection: SsoConnection;
  /**
   * In one of the organisation's claimed domains: a practice's IdP asserts addresses of its own directory, and counts as
   * having verified one only in a domain the organisation proved is its own (any other is refused).
   */
  email: string;
}

export type SamlOutcome =
  | ({ ok: true } & SamlIdentity)
  | {
      ok: false;
      code: SsoErrorCode;
      /** Known once the response named a flow we started. */
      organisationId?: string;
      /** Known once the assertion was valid. */
      email?: string;
      /** What node-saml or the check said, for the log: never shown to the person. */
      why: string;
    };

/** Attributes IdPs put an e-mail address in when the NameID is not one: LDAP's mail, Entra ID's claim, plain email. */
const EMAIL_ATTRIBUTES = ['email', 'mail', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'];

const refused = (code: SsoErrorCode, why: string, organisationId?: string, email?: string): SamlOutcome => ({
  ok: false,
  code,
  why,
  ...(organisationId === undefined ? {} : { organisationId }),
  ...(email === undefined ? {} : { email }),
});

/**
 * The one request node-saml may find a response answering: the flow's, already taken from the shared store (so a
 * second response to it, on any instance, finds no flow and never gets here).
 */
function onlyRequest(requestId: string): CacheProvider {
  const issued = new Date().toISOString();
  return {
    saveAsync: async () => null,
    getAsync: async (key) => (key === requestId ? issued : null),
    removeAsync: async () => null,
  };
}

/**
 * The request a response says it answers, read with the parser node-saml then validates it with, before anything is
 * trusted: only to find the flow (and so the organisation and its certificate). node-saml checks the same attribute
 * against that flow's request, so a response naming another one is refused all the same.
 */
async function inResponseToOf(samlResponse: string): Promise<string | undefined> {
  const { parseDomFromString, xpath } = await nodeSamlXml();
  try {
    const doc = await parseDomFromString(Buffer.from(samlResponse, 'base64').toString('utf8'));
    const values = xpath.selectAttributes(doc, "/*[local-name()='Response']/@InResponseTo");
    return values.length === 1 ? values[0]!.value : undefined;
  } catch {
    return undefined;
  }
}

/** The address the assertion names: its NameID when that is an e-mail address, else an e-mail attribute. */
function emailOf(profile: Profile): string | undefined {
  const candidates: unknown[] = [
    profile.nameIDFormat === EMAIL_NAME_ID_FORMAT ? profile.nameID : undefined,
    ...EMAIL_ATTRIBUTES.map((name) => profile[name]),
  ];
  for (const candidate of candidates) {
    const parsed = EmailAddress.safeParse(candidate);
    if (parsed.success) return parsed.data.toLowerCase();
  }
  return undefined;
}

interface SignedAssertion {
  Assertion?: { $?: { ID?: string }; Conditions?: { $?: { NotOnOrAfter?: string } }[] };
}

/** The assertion's ID and until when it is valid, from the signed assertion node-saml verified. */
function assertionIdentity(profile: Profile): { id: string; notOnOrAfterMs: number } | undefined {
  const assertion = (profile.getAssertion?.() as SignedAssertion | undefined)?.Assertion;
  const id = assertion?.$?.ID;
  const notOnOrAfterMs = Date.parse(assertion?.Conditions?.[0]?.$?.NotOnOrAfter ?? '');
  return id && Number.isFinite(notOnOrAfterMs) ? { id, notOnOrAfterMs } : undefined;
}

/**
 * What the ACS makes of a SAMLResponse: the flow it answers (taken once), the organisation's IdP settings, node-saml's
 * validation with them (signed assertion, audience, time window, InResponseTo), the issuer, each assertion once
 * (across instances, until it expires), and the address.
 */
export class SamlResponseCheck {
  constructor(
    private readonly flows: SsoFlowStore,
    private readonly directory: Pick<SsoDirectory, 'forOrganisation'>,
    private readonly now: () => number = Date.now,
  ) {}

  async check(samlResponse: string, origin: string): Promise<SamlOutcome> {
    const requestId = await inResponseToOf(samlResponse);
    if (requestId === undefined) return refused('sso_failed', 'no InResponseTo: not an answer to a request of ours');
    const flow = await this.flows.take(requestId);
    if (flow?.kind !== 'saml') return refused('sso_failed', 'InResponseTo names no flow (unknown, expired or used)');
    const organisationId = flow.organisationId;
    const connection = await this.directory.forOrganisation(organisationId);
    if (!connection || !isSamlConnection(connection)) {
      return refused('sso_misconfigured', 'the organisation has no SAML settings now', organisationId);
    }
    let profile: Profile | null;
    const library = await nodeSaml();
    const { SAML, SamlStatusError } = library;
    try {
      const saml = new SAML({ ...samlConfig(library, connection, origin), cacheProvider: onlyRequest(flow.requestId) });
      ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
    } catch (err) {
      // The IdP's own refusal (the person cancelled, or may not use this app) is its status; anything else is ours.
      const code = err instanceof SamlStatusError ? 'sso_cancelled' : 'sso_failed';
      return refused(code, err instanceof Error ? err.message : String(err), organisationId);
    }
    if (!profile) return refused('sso_failed', 'no assertion in the response', organisationId);
    // node-saml checks a response's issuer for logout messages only: the assertion's is checked here.
    if (profile.issuer !== connection.saml.idpEntityId) {
      return refused('sso_failed', `assertion issued by ${String(profile.issuer)}`, organisationId);
    }
    const assertion = assertionIdentity(profile);
    if (!assertion) return refused('sso_failed', 'assertion without an ID or a NotOnOrAfter', organisationId);
    // Kept as long as node-saml would accept the assertion: past its NotOnOrAfter and the skew, it is refused anyway.
    const ttlMs = Math.max(1, assertion.notOnOrAfterMs + SAML_CLOCK_SKEW_MS - this.now());
    if (!(await this.flows.firstUse(`saml-assertion:${organisationId}:${assertion.id}`, ttlMs))) {
      return refused('sso_failed', `assertion ${assertion.id} replayed`, organisationId);
    }
    const email = emailOf(profile);
    if (!email) return refused('sso_misconfigured', 'the assertion carries no e-mail address', organisationId);
    if (!connection.domains.includes(email.slice(email.lastIndexOf('@') + 1))) {
      return refused('sso_email_not_in_domains', 'the address is outside the claimed domains', organisationId, email);
    }
    return { ok: true, flow, connection, email };
  }
}
