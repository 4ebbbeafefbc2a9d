import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SSO_DOMAINS, type SsoSettingsData } from '../../../shared/api/sso';
import { openSsoRepository } from '../../../server/sso/open-sso';
import { SsoSettingsService } from '../../../server/sso/sso-settings-service';
import { OPERATOR } from '../../../server/team/team-service';
import { testBackend } from '../../helpers/shared-backends';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { signedIn } from '../team/team-world';
import {
  CERTIFICATE_EXPIRES_AT,
  CERTIFICATE_FINGERPRINT,
  CERTIFICATE_PEM,
  practice,
  practiceDomain,
  SSO_SERVER,
  startIssuer,
  twoSsoInstances,
  verify,
  type Practice,
} from './sso-world';

const SSO = '/api/v1/organisation/sso';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';

let server: TestServer;
let issuer: Awaited<ReturnType<typeof startIssuer>>;

beforeAll(async () => {
  [server, issuer] = await Promise.all([startTestServer(SSO_SERVER), startIssuer()]);
});
afterAll(async () => {
  await Promise.all([server?.close(), issuer?.close()]);
});

/** One practice for every save that is refused: none of them changes anything. */
let refusedPractice: Promise<Practice> | undefined;
const refused = () => (refusedPractice ??= practice(server));

const put = (client: SessionClient, body: unknown) => client.request('PUT', SSO, { body });
const microsoft = (domains: string[], extra: object = {}) => ({
  connection: { provider: 'microsoft', tenant_id: TENANT },
  domains,
  ...extra,
});
const oidc = (domains: string[], connection: object = {}) => ({
  connection: { provider: 'oidc', issuer: `${issuer.url}/good`, client_id: 'dte-client', ...connection },
  domains,
});

async function expectError(res: Response, status: number, code: string): Promise<{ details?: string[] }> {
  const body = await json(res);
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
  return body.error;
}

async function settingsOf(res: Response): Promise<SsoSettingsData> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.data as SsoSettingsData;
}

describe('who may see and change the settings', () => {
  it('owners read them with what this server offers; admins and members are refused, signed-out people too', async () => {
    const p = await practice(server);
    const data = await settingsOf(await p.ownerClient.get(SSO));
    expect(data).toEqual({
      settings: null,
      server: { providers: ['microsoft', 'oidc', 'saml'], oidc_redirect_uri: `${server.url}/api/v1/auth/sso/callback` },
    });
    for (const person of [await p.add('admin'), await p.add('member')]) {
      const client = await signedIn(server, person);
      await expectError(await client.get(SSO), 403, 'forbidden_role');
      await expectError(await put(client, microsoft([p.domain])), 403, 'forbidden_role');
      await expectError(await client.request('DELETE', SSO), 403, 'forbidden_role');
    }
    await expectError(await new SessionClient(server.url).get(SSO), 401, 'unauthenticated');
    expect((await p.ownerClient.get(SSO)).status).toBe(200);
  });
});

describe('Microsoft Entra ID and Google', () => {
  it('saves the tenant and the domain, audited with the provider; the directory finds it by domain and by organisation', async () => {
    const p = await practice(server);
    const data = await settingsOf(await put(p.ownerClient, microsoft([p.domain.toUpperCase()])));
    expect(data.settings).toMatchObject({
      connection: { provider: 'microsoft', tenant_id: TENANT },
      domains: [p.domain],
      default_role: 'member',
      require_sso: false,
      updated_by: p.owner.email,
    });
    expect(await settingsOf(await p.ownerClient.get(SSO))).toEqual(data);
    const expected = {
      organisationId: p.organisationId,
      provider: 'microsoft',
      microsoft: { tenantId: TENANT },
      domains: [p.domain],
      defaultRole: 'member',
      requireSso: false,
    };
    expect(await server.runtime.sso.directory.forDomain(p.domain)).toEqual(expected);
    expect(await server.runtime.sso.directory.forOrganisation(p.organisationId)).toEqual(expected);
    expect(await server.runtime.sso.directory.forDomain(practiceDomain())).toBeUndefined();
    const events = await server.runtime.audit.read({ organisationId: p.organisationId });
    expect(events.filter((e) => e.event === 'sso_settings_changed')).toMatchObject([
      { email: p.owner.email, organisation_id: p.organisationId, sso_provider: 'microsoft', source: 'web' },
    ]);
  });

  it('refuses a provider this server has no app for', async () => {
    const p = await refused();
    const google = { connection: { provider: 'google', domain: p.domain }, domains: [p.domain] };
    await expectError(await put(p.ownerClient, google), 400, 'sso_provider_unavailable');
    expect((await settingsOf(await p.ownerClient.get(SSO))).settings).toBeNull();
  });
});

describe('any OpenID Connect provider', () => {
  it('reads the issuer, stores the secret sealed, never answers it, and keeps it when left out for the same client', async () => {
    const p = await practice(server);
    await expectError(await put(p.ownerClient, oidc([p.domain])), 400, 'sso_secret_required');
    const secret = `s3cret-${p.domain}`;
    const saved = await put(p.ownerClient, oidc([p.domain], { client_secret: secret }));
    const text = await saved.clone().text();
    expect(text).not.toContain(secret);
    expect((await settingsOf(saved)).settings?.connection).toEqual({
      provider: 'oidc',
      issuer: `${issuer.url}/good`,
      client_id: 'dte-client',
      client_secret_set: true,
    });
    const opened = async () => (await server.runtime.sso.directory.forOrganisation(p.organisationId))?.oidc;
    expect(await opened()).toEqual({ issuer: `${issuer.url}/good`, clientId: 'dte-client', clientSecret: secret });
    // Left out later (a trailing slash names the same issuer): kept.
    await settingsOf(
      await put(p.ownerClient, { ...oidc([p.domain], { issuer: `${issuer.url}/good/` }), require_sso: true }),
    );
    expect((await opened())?.clientSecret).toBe(secret);
    // Another client needs its own secret.
    await expectError(await put(p.ownerClient, oidc([p.domain], { client_id: 'another' })), 400, 'sso_secret_required');
    expect((await opened())?.clientId).toBe('dte-client');
    expect(await textUnderDataDir(server)).not.toContain(secret);
    if (server.runtime.database) expect(await everyRowAsText(server)).not.toContain(secret);
    expect(server.logs.join('\n')).not.toContain(secret);
    const events = await server.runtime.audit.read({ organisationId: p.organisationId });
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it.each([
    ['unreachable', () => 'http://127.0.0.1:1/x'],
    ['answering 404', () => `${issuer.url}/missing`],
    ['not a discovery document', () => `${issuer.url}/html`],
    ['naming another issuer', () => `${issuer.url}/other`],
    ['http to a public address', () => 'http://idp.example.com'],
    ['on a private address', () => 'https://10.1.2.3/realm'],
    ['on a link-local address', () => 'https://169.254.169.254'],
  ])('refuses an issuer %s', async (_what, issuerUrl) => {
    const p = await refused();
    const res = await put(p.ownerClient, oidc([p.domain], { issuer: issuerUrl(), client_secret: 'x' }));
    await expectError(res, 400, 'sso_invalid_issuer');
    expect((await settingsOf(await p.ownerClient.get(SSO))).settings).toBeNull();
  });

  it('without SSO_ENCRYPTION_KEY no client secret is taken, and OpenID Connect is not offered', async () => {
    const p = await practice(server);
    const service = new SsoSettingsService({
      repository: await openSsoRepository(server.runtime.storage),
      secrets: null,
      accounts: server.runtime.accounts,
      audit: server.runtime.audit,
      config: { ...server.runtime.config, SSO_ENCRYPTION_KEY: undefined },
      clock: server.runtime.clock,
    });
    const actor = {
      accountId: p.owner.accountId,
      organisationId: p.organisationId,
      audit: { source: 'web' as const, ip: '127.0.0.1', account_id: p.owner.accountId, email: p.owner.email },
    };
    const request = {
      ...oidc([p.domain], { client_secret: 'x' }),
      default_role: 'member',
      require_sso: false,
    } as const;
    await expect(service.save(actor, request as never, server.url)).rejects.toMatchObject({
      code: 'sso_encryption_unavailable',
    });
    expect((await service.view(p.organisationId, server.url)).server.providers).toEqual(['microsoft', 'saml']);
  });
});

describe('SAML 2.0', () => {
  const saml = (domains: string[], certificate: string) => ({
    connection: {
      provider: 'saml',
      idp_entity_id: 'https://idp.clinic.example',
      sso_url: 'https://idp.clinic.example/sso',
      certificate,
    },
    domains,
  });

  it('takes the certificate as PEM or its base64 body, answers its fingerprint and expiry and our service provider', async () => {
    const p = await practice(server);
    const bare = CERTIFICATE_PEM.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
    for (const certificate of [CERTIFICATE_PEM, bare]) {
      const data = await settingsOf(await put(p.ownerClient, saml([p.domain], certificate)));
      const metadata = `${server.url}/api/v1/auth/sso/saml/${p.organisationId}/metadata`;
      expect(data.settings?.connection).toEqual({
        provider: 'saml',
        idp_entity_id: 'https://idp.clinic.example',
        sso_url: 'https://idp.clinic.example/sso',
        certificate_fingerprint: CERTIFICATE_FINGERPRINT,
        certificate_expires_at: CERTIFICATE_EXPIRES_AT,
        service_provider: {
          entity_id: metadata,
          acs_url: `${server.url}/api/v1/auth/sso/saml/acs`,
          metadata_url: metadata,
        },
      });
      const stored = await server.runtime.sso.directory.forOrganisation(p.organisationId);
      expect(stored?.saml?.certificatePem.replace(/\s+/g, '')).toBe(CERTIFICATE_PEM.replace(/\s+/g, ''));
    }
  });

  it.each([
    ['not base64', 'hello, world'],
    ['base64 of something else', Buffer.from('not a certificate at all').toString('base64')],
    ['a truncated PEM', CERTIFICATE_PEM.slice(0, 400) + '\n-----END CERTIFICATE-----'],
    ['with a NUL', `${CERTIFICATE_PEM}\u0000`],
  ])('refuses a certificate that is %s', async (_what, certificate) => {
    const p = await refused();
    await expectError(await put(p.ownerClient, saml([p.domain], certificate)), 400, 'sso_invalid_certificate');
  });
});

describe('domains', () => {
  it.each(['gmail.com', 'outlook.com', 'bigpond.com', 'optusnet.com.au', 'proton.me'])(
    'a public mail domain (%s) is never claimed',
    async (domain) => {
      const p = await refused();
      await expectError(await put(p.ownerClient, microsoft([p.domain, domain])), 400, 'sso_public_domain');
    },
  );

  it("refuses a domain that is not the owner's verified address's, naming it; and every domain of an unverified owner", async () => {
    const p = await practice(server);
    const theirs = practiceDomain();
    const error = await expectError(
      await put(p.ownerClient, microsoft([p.domain, theirs, `mail.${p.domain}`])),
      403,
      'sso_domain_not_yours',
    );
    expect(error.details).toEqual([theirs, `mail.${p.domain}`]);
    const unverified = await p.add('owner');
    await expectError(
      await put(await signedIn(server, unverified), microsoft([p.domain])),
      403,
      'sso_domain_not_yours',
    );
  });

  it('a domain another organisation claims is taken; removing the settings frees it', async () => {
    const domain = practiceDomain();
    const [first, second] = [await practice(server, domain), await practice(server, domain)];
    await settingsOf(await put(first.ownerClient, microsoft([domain])));
    await expectError(await put(second.ownerClient, microsoft([domain])), 409, 'sso_domain_taken');
    expect((await server.runtime.sso.directory.forDomain(domain))?.organisationId).toBe(first.organisationId);
    expect((await settingsOf(await first.ownerClient.request('DELETE', SSO))).settings).toBeNull();
    await expectError(await first.ownerClient.request('DELETE', SSO), 404, 'sso_not_configured');
    expect(await server.runtime.sso.directory.forDomain(domain)).toBeUndefined();
    await settingsOf(await put(second.ownerClient, microsoft([domain])));
    const removed = await server.runtime.audit.read({ organisationId: first.organisationId });
    expect(removed.filter((e) => e.event === 'sso_settings_removed')).toMatchObject([
      { email: first.owner.email, sso_provider: 'microsoft' },
    ]);
  });

  it('two organisations claiming one domain at the same moment: one has it, the other is refused', async () => {
    const domain = practiceDomain();
    const [first, second] = [await practice(server, domain), await practice(server, domain)];
    const answers = await Promise.all([first, second].map((p) => put(p.ownerClient, microsoft([domain]))));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = answers[0]!.status === 200 ? first : second;
    expect((await server.runtime.sso.directory.forDomain(domain))?.organisationId).toBe(winner.organisationId);
  });

  it('a domain the organisation holds stays when saved by an owner at another address; each owner adds their own', async () => {
    const p = await practice(server);
    await settingsOf(await put(p.ownerClient, microsoft([p.domain])));
    const otherDomain = practiceDomain();
    const second = await p.add('owner', `partner@${otherDomain}`);
    await verify(server.runtime, second.accountId);
    const data = await settingsOf(
      await put(await signedIn(server, second), microsoft([otherDomain, p.domain, p.domain])),
    );
    expect(data.settings?.domains).toEqual([otherDomain, p.domain]);
    expect(data.settings?.updated_by).toBe(second.email);
  });
});

describe('input that is not a settings request', () => {
  it.each([
    ['a string for the domains', { ...microsoft([]), domains: 'clinic.com.au' }],
    ['no domain', microsoft([])],
    ['an unknown provider', { connection: { provider: 'okta', tenant_id: TENANT }, domains: ['clinic.com.au'] }],
    ['an extra field', microsoft(['clinic.com.au'], { owner: true })],
    [
      'an extra connection field',
      { ...microsoft(['clinic.com.au']), connection: { provider: 'microsoft', tenant_id: TENANT, secret: 'x' } },
    ],
    [
      'a tenant that is no GUID',
      { ...microsoft(['clinic.com.au']), connection: { provider: 'microsoft', tenant_id: 'contoso' } },
    ],
    [
      'a NUL in the client ID',
      {
        connection: { provider: 'oidc', issuer: 'https://idp.example', client_id: 'a\u0000b', client_secret: 'x' },
        domains: ['clinic.com.au'],
      },
    ],
    ['a domain with a scheme', microsoft(['https://clinic.com.au'])],
    ['an e-mail address for a domain', microsoft(['dr@clinic.com.au'])],
    ['owner as the default role', microsoft(['clinic.com.au'], { default_role: 'owner' })],
    ['a string for require_sso', microsoft(['clinic.com.au'], { require_sso: 'yes' })],
    [
      `${MAX_SSO_DOMAINS + 1} domains`,
      microsoft(Array.from({ length: MAX_SSO_DOMAINS + 1 }, (_, i) => `c${i}.com.au`)),
    ],
    ['an array', [microsoft(['clinic.com.au'])]],
    ['null', null],
  ])('refuses %s with invalid_request', async (_what, body) => {
    const p = await refused();
    await expectError(await put(p.ownerClient, body), 400, 'invalid_request');
  });

  it('refuses a body over 32 kB, and one that is not JSON', async () => {
    const p = await refused();
    const huge = microsoft([p.domain], { padding: 'x'.repeat(40_000) });
    await expectError(await put(p.ownerClient, huge), 413, 'payload_too_large');
    await expectError(await put(p.ownerClient, '{"connection":'), 400, 'invalid_json');
    expect((await settingsOf(await p.ownerClient.get(SSO))).settings).toBeNull();
  });
});

describe('people the team removed', () => {
  it('are remembered as removed until they accept a new invitation', async () => {
    const p = await practice(server);
    const member = await p.add('member');
    const { directory } = server.runtime.sso;
    expect(await directory.wasRemoved(p.organisationId, member.email)).toBe(false);
    const removed = await p.ownerClient.request('DELETE', `/api/v1/team/members/${member.accountId}`);
    expect(removed.status).toBe(200);
    expect(await directory.wasRemoved(p.organisationId, member.email.toUpperCase())).toBe(true);
    const elsewhere = await practice(server);
    expect(await directory.wasRemoved(elsewhere.organisationId, member.email)).toBe(false);
    const invited = await server.runtime.invitations.invite(
      OPERATOR,
      p.organisationId,
      member.email,
      'member',
      server.url,
    );
    // Invited, not yet back.
    expect(await directory.wasRemoved(p.organisationId, member.email)).toBe(true);
    await server.runtime.invitations.accept(invited.link.split('#')[1]!, 'a new password for me', '127.0.0.1');
    expect(await directory.wasRemoved(p.organisationId, member.email)).toBe(false);
  });
});

describe('two instances', () => {
  // One instance per data directory on the JSON default: only the shared backends have two that must agree.
  it.skipIf(testBackend() === 'json')('a change on A holds on B at once: its directory and its page', () =>
    twoSsoInstances(async (a, b) => {
      const p = await practice(a);
      const member = await p.add('member');
      const onB = await signedIn(b, p.owner);
      await settingsOf(await put(p.ownerClient, microsoft([p.domain])));
      expect((await b.runtime.sso.directory.forDomain(p.domain))?.provider).toBe('microsoft');
      await settingsOf(await put(p.ownerClient, microsoft([p.domain], { require_sso: true, default_role: 'admin' })));
      expect(await b.runtime.sso.directory.forDomain(p.domain)).toMatchObject({
        requireSso: true,
        defaultRole: 'admin',
      });
      expect((await settingsOf(await onB.get(SSO))).settings?.require_sso).toBe(true);
      await settingsOf(await onB.request('DELETE', SSO));
      expect(await a.runtime.sso.directory.forDomain(p.domain)).toBeUndefined();
      const removed = await p.ownerClient.request('DELETE', `/api/v1/team/members/${member.accountId}`);
      expect(removed.status).toBe(200);
      expect(await b.runtime.sso.directory.wasRemoved(p.organisationId, member.email)).toBe(true);
    }),
  );

  it.skipIf(testBackend() === 'json')(
    'two organisations claiming one domain on two instances at once: one has it',
    () =>
      twoSsoInstances(async (a, b) => {
        const domain = practiceDomain();
        const first = await practice(a, domain);
        const second = await practice(a, domain);
        const secondOnB = await signedIn(b, second.owner);
        const answers = await Promise.all([
          put(first.ownerClient, microsoft([domain])),
          put(secondOnB, microsoft([domain])),
        ]);
        expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      }),
  );
});

/** Every file under the server's DATA_DIR, as one string. */
async function textUnderDataDir(of: TestServer): Promise<string> {
  const files = await readdir(of.dataDir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    files.filter((f) => f.isFile()).map((f) => readFile(path.join(f.parentPath, f.name), 'latin1')),
  );
  return texts.join('\n');
}

/** Every row of every table of the server's database, as text. */
async function everyRowAsText(of: TestServer): Promise<string> {
  const pool = of.runtime.database!.pool;
  const { rows } = await pool.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const texts = await Promise.all(
    rows.map(async ({ table_name }) => {
      const result = await pool.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`);
      return result.rows.map((r) => r.row).join('\n');
    }),
  );
  return texts.join('\n');
}
