import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPlainText } from '../../../shared/domain/text-hygiene';
import { seedAccount, startTestServer, type SeededAccount, type TestServer } from '../../helpers/test-server';
import { startSmtpReceiver, type SmtpReceiver } from '../../helpers/smtp-receiver';
import { json, SessionClient } from '../auth/session-client';
import { signedIn } from '../team/team-world';

/**
 * Control characters, lone surrogates and look-alike addresses in request fields (issue #35, items 5 and 6), on the
 * backend of the run: refused at the schema with the route's 400, never a 500, never stored, never mailed.
 */

const NEW_PASSWORD = 'a practice passphrase';
/** What the sweep puts into each string field in turn: a NUL, and half of a surrogate pair. */
const BAD_TEXT = ['ex\u0000ists', 'lone \ud800 half'];
/** Valid values of the fields whose example does not pass on its own, so that the one bad field is what is refused. */
const PLAUSIBLE: Record<string, unknown> = {
  password: NEW_PASSWORD,
  token: 'A'.repeat(43),
  role: 'member',
  session_id: 'cs_test_a1',
};

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  example?: unknown;
  anyOf?: Schema[];
};

describe('text fields of requests', () => {
  let smtp: SmtpReceiver;
  let server: TestServer;
  let owner: SeededAccount;
  let client: SessionClient;
  let seq = 0;
  const domain = `d${process.pid}.test`;
  /** A fresh address on the test's domain. */
  const fresh = (what: string) => `${what}${++seq}@${domain}`;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({
      config: { SIGNUP: 'on', SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'DTE <noreply@dte.example>' },
      auth: { loginLimits: { perAccount: 1000, perIp: 100_000 } },
    });
    owner = await seedAccount(server.runtime, { email: `exists@${domain}` });
    client = await signedIn(server, owner);
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const post = (path: string, body: unknown) => client.post(path, { body });
  async function expectRefused(res: Response, code: string): Promise<void> {
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body).toEqual({ success: false, error: { code, message: expect.any(String) } });
  }
  /** Every account whose address reads as `address` to a person. */
  const accountsLike = (address: string) =>
    server.runtime.accounts
      .list()
      .map((entry) => entry.account)
      .filter((a) => a.email.normalize('NFKC').replace(/[^\x21-\x7e]/g, '') === address);

  it('refuses a NUL or a lone surrogate in the fields of sign-up, sign-in, team, invitations and the webhook', async () => {
    const before = server.runtime.accounts.list().length;
    for (const bad of BAD_TEXT) {
      const signup = { practice_name: 'Riverside', email: fresh('new'), password: NEW_PASSWORD };
      await expectRefused(
        await post('/api/v1/signup', { ...signup, practice_name: `Riverside ${bad}` }),
        'invalid_request',
      );
      await expectRefused(await post('/api/v1/signup', { ...signup, email: `${bad}@${domain}` }), 'invalid_request');
      await expectRefused(
        await post('/api/v1/signup', { ...signup, password: `${NEW_PASSWORD}${bad}` }),
        'invalid_request',
      );
      const login = { email: owner.email, password: owner.password };
      await expectRefused(await post('/api/v1/auth/login', { ...login, email: `${bad}@${domain}` }), 'invalid_request');
      await expectRefused(await post('/api/v1/auth/login', { ...login, password: bad }), 'invalid_request');
      await expectRefused(
        await client.request('PATCH', '/api/v1/team', { body: { name: `Practice ${bad}` } }),
        'invalid_request',
      );
      await expectRefused(
        await post('/api/v1/team/invitations', { email: `${bad}@${domain}`, role: 'member' }),
        'invalid_request',
      );
      await expectRefused(
        await post('/api/v1/auth/password-reset/request', { email: `${bad}@${domain}` }),
        'invalid_request',
      );
      const url = `https://hooks.example/${bad}`;
      await expectRefused(await client.request('PUT', '/api/v1/webhook', { body: { url } }), 'invalid_request');
    }
    expect(server.runtime.accounts.list()).toHaveLength(before);
    const { organisation_id } = server.runtime.accounts.membershipOf(owner.accountId)!;
    expect(isPlainText(server.runtime.accounts.organisation(organisation_id)!.name)).toBe(true);
  });

  it('never mails ex\\0ists@ to exists@: the address is refused before anything is sent', async () => {
    const from = smtp.received.length;
    const nul = `ex\u0000ists@${domain}`;
    await expectRefused(
      await post('/api/v1/signup', { practice_name: 'Riverside', email: nul, password: NEW_PASSWORD }),
      'invalid_request',
    );
    await expectRefused(await post('/api/v1/auth/password-reset/request', { email: nul }), 'invalid_request');
    await expectRefused(await post('/api/v1/team/invitations', { email: nul, role: 'admin' }), 'invalid_request');
    await server.runtime.signup.drain();
    await server.runtime.passwordResets.drain();
    expect(smtp.received.slice(from).map((m) => m.to)).toEqual([]);
    expect(accountsLike(owner.email)).toHaveLength(1);
  });

  it.each([
    ['a Cyrillic х', 'e\u0445ists'],
    ['a zero-width space', 'ex\u200bists'],
    ['a zero-width joiner', 'ex\u200dists'],
  ])('refuses a look-alike address with %s wherever an address enters', async (_what, local) => {
    const address = `${local}@${domain}`;
    await expectRefused(
      await post('/api/v1/signup', { practice_name: 'Look-alike', email: address, password: NEW_PASSWORD }),
      'invalid_request',
    );
    await expectRefused(await post('/api/v1/team/invitations', { email: address, role: 'admin' }), 'invalid_request');
    await expectRefused(await post('/api/v1/auth/password-reset/request', { email: address }), 'invalid_request');
    await expectRefused(
      await post('/api/v1/auth/login', { email: address, password: owner.password }),
      'invalid_request',
    );
    expect(accountsLike(owner.email)).toHaveLength(1);
  });

  it.each([
    ['fullwidth letters', `ｅｘｉｓｔｓ@${domain}`],
    // The long s, capitals: test/unit/auth/text-fields.test.ts (the same normalisation).
    ['a trailing dot', `exists@${domain}.`],
  ])(
    'takes an address with %s as the address it reads as: the same account, never a second',
    async (_what, address) => {
      const signIn = await new SessionClient(server.url).login(address, owner.password);
      expect(signIn.status).toBe(200);
      expect((await json(signIn)).data.account.id).toBe(owner.accountId);
      const signup = await new SessionClient(server.url).post('/api/v1/signup', {
        body: { practice_name: 'Look-alike practice', email: address, password: NEW_PASSWORD },
      });
      expect(signup.status).toBeLessThan(300);
      expect((await json(signup)).data.email).toBe(owner.email);
      expect(accountsLike(owner.email)).toHaveLength(1);
      // An invitation of it is one of the existing account, as for its plain spelling.
      const invite = await post('/api/v1/team/invitations', { email: address, role: 'member' });
      const plain = await post('/api/v1/team/invitations', { email: owner.email, role: 'member' });
      expect(invite.status).toBe(plain.status);
    },
  );

  it('answers no operation of the OpenAPI document with a 5xx for a NUL or a lone surrogate in any string field', async () => {
    const doc = await json(await fetch(`${server.url}/api/v1/openapi.json`));
    const resolve = (s: Schema): Schema => (s.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()!]) : s);
    const isString = (s: Schema) => s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));
    /** A plausible value for a field the sweep is not testing. */
    const plausible = (s: Schema, name = ''): unknown => {
      const r = resolve(s);
      if (name in PLAUSIBLE) return PLAUSIBLE[name];
      if (r.example !== undefined) return r.example;
      if (r.enum) return r.enum[0];
      if (r.anyOf) return plausible(r.anyOf[0]!);
      if (r.type === 'array') return [];
      if (r.type === 'object') return {};
      if (r.type === 'number' || r.type === 'integer') return 1;
      if (r.type === 'boolean') return true;
      return 'x';
    };
    const sent: string[] = [];
    const answers: string[] = [];
    const apiKey = owner.apiKey!;
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await client.request(method.toUpperCase(), path, { body, headers: { 'x-api-key': apiKey } });
      sent.push(`${method} ${path}`);
      // A browser's own endpoints (the SSO callback and SAML's finish) refuse by sending the browser back to the
      // sign-in page with the reason, which is their answer to anything they cannot use.
      const refusedToBrowser = res.status === 303 && res.headers.get('location')?.startsWith('/console/?sso_error=');
      if (res.status >= 500 || (res.status < 400 && !refusedToBrowser)) {
        answers.push(`${method} ${path} ${JSON.stringify(body)}: ${res.status}`);
      }
    };
    for (const [template, operations] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        const parameters: { in: string; name: string; schema: Schema }[] = operation.parameters ?? [];
        const path = (value: string) => template.replace(/\{([^}]+)\}/g, () => encodeURIComponent(value));
        const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
        const fields = Object.entries(bodySchema ? (resolve(bodySchema).properties ?? {}) : {});
        const base = bodySchema && Object.fromEntries(fields.map(([name, s]) => [name, plausible(s, name)]));
        for (const bad of BAD_TEXT) {
          for (const [name, field] of fields) {
            const f = resolve(field);
            if (isString(f)) await send(method, path('x'), { ...base, [name]: bad });
            else if (f.type === 'array' && f.items && isString(resolve(f.items))) {
              await send(method, path('x'), { ...base, [name]: [bad] });
            }
          }
          for (const p of parameters.filter((p) => p.in === 'query' && isString(resolve(p.schema)))) {
            // A lone surrogate has no UTF-8: the three bytes CESU-8 would write for it (%ED%A0%80).
            const query = encodeURIComponent(bad.replace(/[\ud800-\udfff]/g, '\u0001')).replace('%01', '%ED%A0%80');
            await send(method, `${path('x')}?${p.name}=${query}`);
          }
        }
        // A path parameter is decoded from UTF-8, which has no lone surrogate (a malformed one is item 7's): a NUL.
        if (parameters.some((p) => p.in === 'path')) await send(method, path('\u0000'), base);
      }
    }
    expect(sent.length).toBeGreaterThan(30);
    expect(answers).toEqual([]);
  });
});
