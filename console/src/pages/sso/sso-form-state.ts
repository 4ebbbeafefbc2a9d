import {
  MAX_SSO_DOMAINS,
  SsoSettingsRequest,
  type SsoDefaultRole,
  type SsoProvider,
  type SsoSettingsData,
  type SsoSettingsView,
} from '../../../../shared/api/sso';
import { FIELD_LABELS } from './sso-words';

/** What the form holds: every provider's fields (switching provider keeps what was typed), as typed. */
export interface SsoFormState {
  provider: SsoProvider;
  tenantId: string;
  googleDomain: string;
  issuer: string;
  clientId: string;
  /** Write-only: empty keeps the stored secret. */
  clientSecret: string;
  idpEntityId: string;
  ssoUrl: string;
  /** Write-only as well: empty keeps the stored certificate. */
  certificate: string;
  domains: string;
  defaultRole: SsoDefaultRole;
  requireSso: boolean;
}

/** The form as the settings are now (or empty, with the first provider this server offers). */
export function formStateOf(data: SsoSettingsData): SsoFormState {
  const settings: SsoSettingsView | null = data.settings;
  const c = settings?.connection;
  return {
    provider: c?.provider ?? data.server.providers[0] ?? 'saml',
    tenantId: c?.provider === 'microsoft' ? c.tenant_id : '',
    googleDomain: c?.provider === 'google' ? c.domain : '',
    issuer: c?.provider === 'oidc' ? c.issuer : '',
    clientId: c?.provider === 'oidc' ? c.client_id : '',
    clientSecret: '',
    idpEntityId: c?.provider === 'saml' ? c.idp_entity_id : '',
    ssoUrl: c?.provider === 'saml' ? c.sso_url : '',
    certificate: '',
    domains: settings?.domains.join('\n') ?? '',
    defaultRole: settings?.default_role ?? 'member',
    requireSso: settings?.require_sso ?? false,
  };
}

/** The domains as typed: one per line, or separated by commas or spaces. */
export const domainList = (typed: string): string[] => typed.split(/[\s,;]+/).filter(Boolean);

/**
 * The request the form makes, or what to fix first in words. Checked with the contract's own schema, so a field the
 * server would refuse is named here instead.
 */
export function requestOf(form: SsoFormState): { request: SsoSettingsRequest } | { problem: string } {
  const optional = (value: string) => (value.trim() === '' ? undefined : value);
  const connections = {
    microsoft: { provider: 'microsoft', tenant_id: form.tenantId },
    google: { provider: 'google', domain: form.googleDomain },
    oidc: {
      provider: 'oidc',
      issuer: form.issuer.trim(),
      client_id: form.clientId,
      client_secret: optional(form.clientSecret),
    },
    saml: {
      provider: 'saml',
      idp_entity_id: form.idpEntityId,
      sso_url: form.ssoUrl.trim(),
      certificate: optional(form.certificate),
    },
  } as const;
  const domains = domainList(form.domains);
  if (domains.length === 0) return { problem: 'Enter at least one e-mail domain, such as clinic.com.au.' };
  const parsed = SsoSettingsRequest.safeParse({
    connection: connections[form.provider],
    domains,
    default_role: form.defaultRole,
    require_sso: form.requireSso,
  });
  if (parsed.success) return { request: parsed.data };
  const issue = parsed.error.issues[0]!;
  if (issue.path.length === 1 && issue.code === 'too_big') {
    return { problem: `List at most ${MAX_SSO_DOMAINS} e-mail domains.` };
  }
  const field = [...issue.path].reverse().find((part) => typeof part === 'string' && part in FIELD_LABELS);
  const name = field === undefined ? 'A field' : FIELD_LABELS[field as keyof typeof FIELD_LABELS];
  const what = issue.code === 'too_small' ? 'is required' : issue.code === 'too_big' ? 'is too long' : issue.message;
  return { problem: `${name}: ${what}.` };
}
