import { z } from 'zod';
import { endpoint } from './endpoint';
import { EmailAddress, plainText } from './text-fields';

/**
 * Single sign-on (issue #38): an organisation's members sign in with the practice's Microsoft 365 (Entra ID), Google
 * Workspace, any OpenID Connect provider or a SAML 2.0 identity provider. An owner sets it up (GET/PUT/DELETE
 * /api/v1/organisation/sso); sign-in asks for the e-mail first, and an address in a domain the organisation claims is
 * sent to its provider (GET /api/v1/auth/sso/start), whose answer (the OpenID Connect callback or the SAML ACS) starts
 * the same cookie session as a password sign-in.
 */

/** Who signs the members in: Microsoft and Google through the operator's one app each; OIDC and SAML the practice's. */
export const SsoProvider = z.enum(['microsoft', 'google', 'oidc', 'saml']).meta({ id: 'SsoProvider' });
export type SsoProvider = z.infer<typeof SsoProvider>;

/** The button on the sign-in page: "Continue with …". */
export const SSO_PROVIDER_LABELS: Record<SsoProvider, string> = {
  microsoft: 'Microsoft',
  google: 'Google',
  oidc: "your organisation's sign-in",
  saml: "your organisation's sign-in",
};

/** The roles a person who arrives by single sign-on without an invitation may get: never owner. */
export const SsoDefaultRole = z.enum(['member', 'admin']).meta({ id: 'SsoDefaultRole' });
export type SsoDefaultRole = z.infer<typeof SsoDefaultRole>;

/** At most this many e-mail domains per organisation. */
export const MAX_SSO_DOMAINS = 20;

/**
 * An e-mail domain as a claim names it: lower case, ASCII (an internationalised one in its xn-- form), at least two
 * labels, no scheme, port, path or "@".
 */
export const EmailDomain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(
    /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
    'must be an e-mail domain such as clinic.com.au',
  )
  .meta({ example: 'clinic.com.au' });

/** An https URL (http only to a loopback address: an identity provider on the same machine, as in the tests). */
const ProviderUrl = plainText()
  .max(2000)
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an https URL' }));

/** A directory (tenant) ID of Microsoft Entra ID: a GUID. */
const TenantId = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be a directory (tenant) ID, a GUID')
  .meta({ example: '72f988bf-86f1-41af-91ab-2d7cd011db47' });

/** What an owner sends for each provider. Secrets are write-only: never answered back. */
export const SsoConnectionRequest = z
  .discriminatedUnion('provider', [
    z.object({ provider: z.literal('microsoft'), tenant_id: TenantId }).strict(),
    z.object({ provider: z.literal('google'), domain: EmailDomain }).strict(),
    z
      .object({
        provider: z.literal('oidc'),
        issuer: ProviderUrl.meta({ description: 'The issuer; its /.well-known/openid-configuration is read' }),
        client_id: plainText().trim().min(1).max(500),
        client_secret: plainText().min(1).max(2000).optional().meta({
          description:
            'Write-only, stored encrypted. Required the first time; left out on a later change, the stored one is kept.',
        }),
      })
      .strict(),
    z
      .object({
        provider: z.literal('saml'),
        idp_entity_id: plainText().trim().min(1).max(1000),
        sso_url: ProviderUrl.meta({ description: "The IdP's single sign-on URL (HTTP-Redirect binding)" }),
        certificate: z.string().min(1).max(20_000).optional().meta({
          description:
            "The IdP's signing certificate: PEM, or its base64 body. Required the first time; left out on a later change, the stored one is kept.",
        }),
      })
      .strict(),
  ])
  .meta({ id: 'SsoConnectionRequest' });
export type SsoConnectionRequest = z.infer<typeof SsoConnectionRequest>;

/** PUT /api/v1/organisation/sso (owners only). */
export const SsoSettingsRequest = z
  .object({
    connection: SsoConnectionRequest,
    domains: z
      .array(EmailDomain)
      .min(1)
      .max(MAX_SSO_DOMAINS)
      .meta({ description: "E-mail domains whose addresses sign in through this organisation's provider" }),
    default_role: SsoDefaultRole.default('member'),
    require_sso: z.boolean().default(false).meta({
      description:
        'Members with an address in a claimed domain cannot sign in with a password (owners keep theirs, audited on use)',
    }),
  })
  .strict()
  .meta({ id: 'SsoSettingsRequest' });
export type SsoSettingsRequest = z.infer<typeof SsoSettingsRequest>;

/** What the service publishes for a SAML IdP to trust: per organisation. */
export const SamlServiceProvider = z
  .object({
    entity_id: z.string().meta({ description: 'Our entity ID (audience) for this organisation' }),
    acs_url: z.string().meta({ description: 'Assertion Consumer Service URL (HTTP-POST binding)' }),
    metadata_url: z.string(),
  })
  .meta({ id: 'SamlServiceProvider' });

/** The connection as answered: no secret, a certificate by its fingerprint. */
export const SsoConnectionView = z
  .discriminatedUnion('provider', [
    z.object({ provider: z.literal('microsoft'), tenant_id: z.string() }),
    z.object({ provider: z.literal('google'), domain: z.string() }),
    z.object({
      provider: z.literal('oidc'),
      issuer: z.string(),
      client_id: z.string(),
      client_secret_set: z.boolean(),
    }),
    z.object({
      provider: z.literal('saml'),
      idp_entity_id: z.string(),
      sso_url: z.string(),
      certificate_fingerprint: z.string().meta({ description: 'SHA-256 of the certificate, hex pairs with colons' }),
      certificate_expires_at: z.string().meta({ description: 'ISO 8601 UTC' }),
      service_provider: SamlServiceProvider,
    }),
  ])
  .meta({ id: 'SsoConnection' });
export type SsoConnectionView = z.infer<typeof SsoConnectionView>;

export const SsoSettingsView = z
  .object({
    connection: SsoConnectionView,
    domains: z.array(z.string()),
    default_role: SsoDefaultRole,
    require_sso: z.boolean(),
    updated_at: z.string(),
    updated_by: z.string().nullable().meta({ description: 'The e-mail of the owner who last changed it' }),
  })
  .meta({ id: 'SsoSettings' });
export type SsoSettingsView = z.infer<typeof SsoSettingsView>;

/** GET /api/v1/organisation/sso: the settings (null: not set up) and what this server offers. */
export const SsoSettingsData = z
  .object({
    settings: SsoSettingsView.nullable(),
    server: z.object({
      providers: z
        .array(SsoProvider)
        .meta({ description: 'Providers this server can use (Microsoft and Google need the operator’s app)' }),
      oidc_redirect_uri: z
        .string()
        .meta({ description: 'The redirect URI to register with an OpenID Connect provider' }),
      saml_service_provider: SamlServiceProvider.meta({
        description: 'What to register with a SAML identity provider for this organisation (before it is set up too)',
      }),
    }),
  })
  .meta({ id: 'SsoSettingsData' });
export type SsoSettingsData = z.infer<typeof SsoSettingsData>;

/** GET /api/v1/auth/sso/discover?email=: how this address signs in. Never says whether an account exists. */
export const SsoDiscoverQuery = z.object({ email: EmailAddress });
export const SsoDiscovery = z
  .discriminatedUnion('method', [
    z.object({ method: z.literal('password') }),
    z.object({
      method: z.literal('sso'),
      provider: SsoProvider,
      label: z.string().meta({ description: 'For the button: "Continue with {label}"' }),
      start_url: z.string().meta({ description: 'Where to send the browser (GET): it answers 302 to the provider' }),
      password_allowed: z.boolean().meta({
        description: 'False when the organisation requires single sign-on (its owners may still use a password)',
      }),
    }),
  ])
  .meta({ id: 'SsoDiscovery' });
export type SsoDiscovery = z.infer<typeof SsoDiscovery>;

/** Where the console goes back to after a sign-in: a path of the console's own, never another site. */
export const SsoReturnPath = z
  .string()
  .max(500)
  .regex(/^\/console(?:\/[A-Za-z0-9\-._~/]*)?(?:\?[A-Za-z0-9\-._~=&%]*)?$/, 'must be a path under /console')
  .refine((path) => !path.includes('//') && !path.includes('/..'), 'must be a path under /console');

/** GET /api/v1/auth/sso/start?email=&return_to=: 302 to the organisation's provider. */
export const SsoStartQuery = z.object({ email: EmailAddress, return_to: SsoReturnPath.optional() });

/** GET /api/v1/auth/sso/callback: what an OpenID Connect provider sends back (RFC 6749 §4.1.2, §4.1.2.1). */
export const SsoCallbackQuery = z
  .object({
    code: plainText().max(4000).optional(),
    state: plainText().max(500).optional(),
    error: plainText().max(200).optional(),
    error_description: plainText().max(2000).optional(),
    iss: plainText().max(2000).optional(),
  })
  .loose();

/** POST /api/v1/auth/sso/saml/acs: the IdP's HTTP-POST binding (application/x-www-form-urlencoded). */
export const SamlAcsForm = z.object({
  SAMLResponse: z
    .string()
    .min(1)
    .max(200_000)
    .regex(/^[A-Za-z0-9+/=\r\n]+$/, 'must be base64'),
  RelayState: plainText().max(500).optional(),
});

/** GET /api/v1/auth/sso/saml/finish: the one-time ticket the ACS redirected the browser with. */
export const SamlFinishQuery = z.object({ ticket: plainText().max(200).optional() });

export const SamlMetadataParams = z.object({ organisation_id: plainText().min(1).max(200) });

/**
 * Why a single sign-on did not end in a session. The callback and the ACS redirect the browser to the console's
 * sign-in page with `?sso_error=<code>` (the console says it in words: SSO_ERROR_WORDS); the API answers the same
 * codes in its JSON envelope (shared/api/errors.ts).
 */
export const SsoErrorCode = z.enum([
  'sso_domain_not_claimed',
  'sso_wrong_tenant',
  'sso_wrong_domain',
  'sso_email_unverified',
  'sso_email_not_in_domains',
  'sso_misconfigured',
  'sso_idp_unreachable',
  'sso_failed',
  'sso_cancelled',
  'sso_member_removed',
  'sso_account_elsewhere',
]);
export type SsoErrorCode = z.infer<typeof SsoErrorCode>;

/**
 * What stopped a browser's sign-in on this service's side, not the organisation's: too many sign-ins started from one
 * address (`sso_busy`), or this service's storage out or a fault of ours (`sso_unavailable`). Sent to the sign-in page
 * by the same parameter as a refusal, so a person never lands on a page of JSON; an API client gets the envelope.
 */
export const SsoInterruption = z.enum(['sso_busy', 'sso_unavailable']);
export type SsoInterruption = z.infer<typeof SsoInterruption>;

/** What the sign-in page's `?sso_error=` may name. */
export const SsoErrorParam = z.union([SsoErrorCode, SsoInterruption]);
export type SsoErrorParam = z.infer<typeof SsoErrorParam>;

/** The console's words for each refusal and interruption: a practice manager reads them. */
export const SSO_ERROR_WORDS: Record<SsoErrorParam, { title: string; text: string }> = {
  sso_domain_not_claimed: {
    title: 'No single sign-on for this address',
    text: 'No organisation here signs in with this e-mail domain. Sign in with your password, or ask your practice’s owner.',
  },
  sso_wrong_tenant: {
    title: 'Another organisation’s Microsoft account',
    text: 'The Microsoft account you used belongs to a different organisation (directory) than the one your practice set up. Sign out of Microsoft and use your practice account.',
  },
  sso_wrong_domain: {
    title: 'Another organisation’s Google account',
    text: 'The Google account you used is not in your practice’s Google Workspace. Use your practice account.',
  },
  sso_email_unverified: {
    title: 'Your e-mail address is not verified',
    text: 'Your organisation’s sign-in did not confirm your e-mail address. Ask your IT provider to verify it.',
  },
  sso_email_not_in_domains: {
    title: 'This address is not one your practice claimed',
    text: 'The account you signed in with has an e-mail address outside the domains your practice set up for single sign-on.',
  },
  sso_misconfigured: {
    title: 'Single sign-on is not set up correctly',
    text: 'Your practice’s single sign-on settings did not work. Ask its owner to check them on the Single sign-on page.',
  },
  sso_idp_unreachable: {
    title: 'Your organisation’s sign-in could not be reached',
    text: 'Try again in a few minutes. If it keeps happening, tell your IT provider.',
  },
  sso_failed: {
    title: 'Sign-in did not complete',
    text: 'The sign-in was interrupted, expired or already used. Start again.',
  },
  sso_cancelled: {
    title: 'Sign-in was cancelled',
    text: 'Your organisation’s sign-in did not sign you in. Start again when you are ready.',
  },
  sso_member_removed: {
    title: 'You were removed from this practice',
    text: 'Ask an owner or administrator of the practice to invite you again.',
  },
  sso_account_elsewhere: {
    title: 'This address belongs to another organisation here',
    text: 'Your e-mail address is a member of a different organisation on this service. Ask its owner to remove you first.',
  },
  sso_busy: {
    title: 'Too many sign-ins started just now',
    text: 'Sign-in was started many times from this computer’s network or for this e-mail address. Wait 15 minutes, then start again.',
  },
  sso_unavailable: {
    title: 'Sign-in is unavailable for a moment',
    text: 'This service could not finish your sign-in just now. Nothing is wrong with your practice’s Microsoft, Google or other sign-in. Wait a minute, then start again.',
  },
};

/** The console's sign-in page shows a refused single sign-on by this query parameter. */
export const SSO_ERROR_PARAM = 'sso_error';

/** The session cookie a single sign-on starts is the password sign-in's; these are its endpoints. */
export const SSO_ENDPOINTS = {
  settings: endpoint({ method: 'get', path: '/api/v1/organisation/sso', data: SsoSettingsData }),
  saveSettings: endpoint({
    method: 'put',
    path: '/api/v1/organisation/sso',
    body: SsoSettingsRequest,
    data: SsoSettingsData,
  }),
  removeSettings: endpoint({ method: 'delete', path: '/api/v1/organisation/sso', data: SsoSettingsData }),
  discover: endpoint({ method: 'get', path: '/api/v1/auth/sso/discover', query: SsoDiscoverQuery, data: SsoDiscovery }),
  start: endpoint({ method: 'get', path: '/api/v1/auth/sso/start', query: SsoStartQuery }),
  callback: endpoint({ method: 'get', path: '/api/v1/auth/sso/callback', query: SsoCallbackQuery }),
  samlAcs: endpoint({ method: 'post', path: '/api/v1/auth/sso/saml/acs' }),
  samlFinish: endpoint({ method: 'get', path: '/api/v1/auth/sso/saml/finish', query: SamlFinishQuery }),
  samlMetadata: endpoint({
    method: 'get',
    path: '/api/v1/auth/sso/saml/{organisation_id}/metadata',
    params: SamlMetadataParams,
  }),
} as const;
