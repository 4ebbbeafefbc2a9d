import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionData } from '../../../shared/api/auth';
import { successEnvelope } from '../../../shared/api/envelope';
import { SignupAcceptedData, SignupSettingsData } from '../../../shared/api/signup';
import { OPERATOR } from '../../../server/team/team-service';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { expectError, OTHER_PASSWORD, PASSWORD, sessionOf, signUp, signUpAndSignIn, signupEmail } from './signup-world';

const ACCEPTED = successEnvelope(SignupAcceptedData.strict());
const SETTINGS = successEnvelope(SignupSettingsData.strict());
const SESSION = successEnvelope(SessionData.strict());
/** Every sign-up of these tests comes from 127.0.0.1: limits far above what they use, but for the throttle's own. */
const ROOMY_LIMITS = { perAccount: 50, perIp: 1000 };
const CONTACT = 'Clinic IT Services, help@clinicit.example, 02 5550 1234';

describe('sign-up switched off (operator mode, the default of npm start)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('GET says disabled; POST is 403 signup_disabled whatever it sends, and creates nothing', async () => {
    const settings = await fetch(`${server.url}/api/v1/signup`);
    expect(settings.status).toBe(200);
    expect(SETTINGS.parse(await json(settings)).data).toEqual({
      enabled: false,
      billing: 'operator',
      email_verification: false,
      operator_contact: null,
    });
    const email = signupEmail('off');
    const { res } = await signUp(server, { practice_name: 'Off Practice', email, password: PASSWORD });
    await expectError(res, 403, 'signup_disabled');
    for (const body of ['{"practice_name": ', { nothing: true }]) {
      await expectError((await signUp(server, body)).res, 403, 'signup_disabled');
    }
    expect(server.runtime.accounts.findByEmail(email)).toBeUndefined();
  });
});

describe('sign-up switched on (SIGNUP=on, operator mode)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      config: { SIGNUP: 'on', OPERATOR_CONTACT: CONTACT },
      auth: { loginLimits: ROOMY_LIMITS },
    });
  });
  afterAll(async () => {
    if (server) {
      const logs = server.logs.join('\n');
      for (const secret of [PASSWORD, OTHER_PASSWORD]) {
        expect(logs.includes(secret), 'a secret in the logs').toBe(false);
      }
    }
    await server?.close();
  });

  it('GET says enabled, the operator activating subscriptions, and who the operator is (OPERATOR_CONTACT)', async () => {
    const res = await fetch(`${server.url}/api/v1/signup`);
    expect(SETTINGS.parse(await json(res)).data).toEqual({
      enabled: true,
      billing: 'operator',
      email_verification: false,
      operator_contact: CONTACT,
    });
  });

  it('creates the organisation and its owner, who signs in with the password chosen, with an inactive subscription until the operator activates it', async () => {
    const email = signupEmail('owner');
    const { client, res } = await signUp(server, {
      practice_name: '  Riverside Family Practice ',
      email: `  ${email.toUpperCase()} `,
      password: PASSWORD,
    });
    expect(res.status).toBe(202);
    expect(ACCEPTED.parse(await json(res)).data).toEqual({ email, verification: 'not_configured' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Nobody is signed in by a sign-up: the session would tell a new address from one with an account.
    expect((await sessionOf(client)).authenticated).toBe(false);
    await server.runtime.signup.drain();
    expect((await client.login(email, PASSWORD)).status).toBe(200);

    const session = SESSION.parse({ success: true, data: await sessionOf(client) }).data;
    expect(session).toMatchObject({
      authenticated: true,
      account: { email, email_verified: false },
      organisation: { name: 'Riverside Family Practice', role: 'owner' },
    });
    const status = await json(await client.get('/api/v1/keys/status'));
    expect(status.data.subscription).toMatchObject({ status: 'inactive', expires_at: null });
    await expectError(await client.post('/api/v1/keys/generate'), 403, 'subscription_inactive');

    await server.runtime.accounts.setSubscription(email, { status: 'active' }, { by: OPERATOR.by });
    const generated = await client.post('/api/v1/keys/generate');
    expect(generated.status).toBe(201);
    expect((await json(generated)).data.api_key).toEqual(expect.any(String));

    // The event says where the account came from.
    const events = await server.runtime.audit.read({ organisationId: session.organisation!.id });
    expect(events.find((e) => e.event === 'account_created')).toMatchObject({
      source: 'web',
      ip: expect.any(String),
      account_id: session.account!.id,
      email,
      reason: 'signup',
    });
  });

  it('an address with an account gets the same answer, byte for byte, with the same headers and no session; the account is unchanged', async () => {
    const email = signupEmail('taken');
    const answer = async (res: Response) => ({
      status: res.status,
      body: Buffer.from(await res.arrayBuffer()).toString(),
      headers: [...res.headers.keys()].filter((h) => h !== 'date').sort(),
      cookies: res.headers.getSetCookie(),
    });
    const first = await signUp(server, { practice_name: 'First Practice', email, password: PASSWORD });
    const firstAnswer = await answer(first.res);
    await server.runtime.signup.drain();
    const before = server.runtime.accounts.findByEmail(email)!;
    const accounts = server.runtime.accounts.list().length;
    const second = await signUp(server, { practice_name: 'Second Practice', email, password: OTHER_PASSWORD });
    expect(await answer(second.res)).toEqual(firstAnswer);
    expect(firstAnswer.cookies).toEqual([]);
    for (const { client } of [first, second]) expect((await sessionOf(client)).authenticated).toBe(false);

    await server.runtime.signup.drain();
    expect(server.runtime.accounts.findByEmail(email)).toEqual(before);
    expect(server.runtime.accounts.list()).toHaveLength(accounts);
    expect(
      server.runtime.accounts.organisation(server.runtime.accounts.membershipOf(before.id)!.organisation_id)!.name,
    ).toBe('First Practice');
    expect((await new SessionClient(server.url).login(email, PASSWORD)).status).toBe(200);
    await expectError(await new SessionClient(server.url).login(email, OTHER_PASSWORD), 401, 'invalid_credentials');

    // A browser signed in as someone else that signs up is signed out, whichever the address.
    const other = signupEmail('other');
    const browser = await signUpAndSignIn(server, { practice_name: 'Other', email: other, password: PASSWORD });
    const fromBrowser = await signUp(server, { practice_name: 'Third', email, password: OTHER_PASSWORD }, browser);
    expect(fromBrowser.res.status).toBe(202);
    expect((await sessionOf(browser)).authenticated).toBe(false);
  });

  /** Holds every write of the accounts document until `release` (the writes asked for are counted). */
  async function holdWrites() {
    const store = await server.runtime.storage.accounts();
    const update = store.update.bind(store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hold = { writes: 0, release: () => (release(), (store.update = update)) };
    store.update = (async (...args: Parameters<typeof update>) => {
      hold.writes++;
      await held;
      return update(...args);
    }) as typeof update;
    return hold;
  }

  it('answers before any storage work, the same for a new address and a taken one: a write that hangs delays neither', async () => {
    const taken = signupEmail('held');
    await signUpAndSignIn(server, { practice_name: 'Held', email: taken, password: PASSWORD });
    const hold = await holdWrites();
    const fresh = signupEmail('fresh');
    try {
      for (const email of [fresh, taken]) {
        const { res } = await signUp(server, { practice_name: 'Held', email, password: OTHER_PASSWORD });
        expect(res.status).toBe(202);
      }
      // Both went on to their write after the answer: one each.
      await expect.poll(() => hold.writes).toBe(2);
    } finally {
      hold.release();
    }
    await server.runtime.signup.drain();
    expect(server.runtime.accounts.findByEmail(fresh)).toBeDefined();
  });

  it('a sign-in right after a sign-up waits for the account to be written, and signs in', async () => {
    const email = signupEmail('quick');
    const hold = await holdWrites();
    const signup = server.runtime.signup;
    const settled = signup.settled.bind(signup);
    let waited = 0;
    signup.settled = (address) => (waited++, settled(address));
    try {
      const { client, res } = await signUp(server, { practice_name: 'Quick', email, password: PASSWORD });
      expect(res.status).toBe(202);
      const signingIn = client.login(email, PASSWORD);
      await expect.poll(() => waited).toBe(1);
      hold.release();
      expect((await signingIn).status).toBe(200);
    } finally {
      hold.release();
      signup.settled = settled;
    }
  });

  it('ten concurrent sign-ups with one email make exactly one account, and sign no browser in', async () => {
    const email = signupEmail('race');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        signUp(server, { practice_name: `Race ${i}`, email, password: `${PASSWORD} ${i}` }),
      ),
    );
    expect(answers.map((a) => a.res.status)).toEqual(Array(10).fill(202));
    await server.runtime.signup.drain();
    expect(server.runtime.accounts.list().filter((a) => a.account.email === email)).toHaveLength(1);
    const signedIn = await Promise.all(answers.map(async (a) => (await sessionOf(a.client)).authenticated));
    expect(signedIn.filter(Boolean)).toHaveLength(0);
  });

  it('a short password is 400 weak_password; other bad input is a 4xx envelope, never a 500', async () => {
    const base = { practice_name: 'Ugly Inputs', email: signupEmail('ugly'), password: PASSWORD };
    await expectError((await signUp(server, { ...base, password: 'short' })).res, 400, 'weak_password');
    const invalid: unknown[] = [
      {},
      { ...base, password: undefined },
      { ...base, email: undefined },
      { ...base, practice_name: undefined },
      { ...base, practice_name: '   ' },
      { ...base, practice_name: 'x'.repeat(121) },
      { ...base, email: 'not an email' },
      { ...base, email: 42 },
      { ...base, password: 1234567890123 },
      { ...base, practice_name: ['a'] },
      { ...base, password: 'p'.repeat(1025) },
      { ...base, plan: 'free' },
      [base],
      '"a string"',
      null,
      { ...base, email: '١٢٣ @example.com' },
    ];
    for (const body of invalid) {
      await expectError((await signUp(server, body === null ? 'null' : body)).res, 400, 'invalid_request');
    }
    await expectError((await signUp(server, '{"practice_name": "Broken"')).res, 400, 'invalid_json');
    await expectError((await signUp(server, `{"email": "a@b.co", "email": "c@d.co"}`)).res, 400, 'invalid_json');
    const huge = { ...base, practice_name: 'x'.repeat(20 * 1024) };
    await expectError((await signUp(server, huge)).res, 413, 'payload_too_large');
    const text = await new SessionClient(server.url).post('/api/v1/signup', {
      body: 'practice_name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await expectError(text, 415, 'unsupported_media_type');
    await expectError(await new SessionClient(server.url).request('PUT', '/api/v1/signup'), 405, 'method_not_allowed');
    expect(server.runtime.accounts.findByEmail(base.email)).toBeUndefined();
  });

  it('a name in any script and unicode digits in the password are taken as typed', async () => {
    const email = signupEmail('unicode');
    const password = '٣٤٥٦٧٨٩٠١٢ كلمة';
    const client = await signUpAndSignIn(server, { practice_name: 'عيادة 家庭医 Ωμέγα', email, password });
    expect((await sessionOf(client)).organisation.name).toBe('عيادة 家庭医 Ωμέγα');
  });

  it('a browser with a session cookie signing up from another site is 403 forbidden_origin, and nothing is made', async () => {
    const client = await signUpAndSignIn(server, {
      practice_name: 'Has Cookie',
      email: signupEmail('c'),
      password: PASSWORD,
    });
    const email = signupEmail('csrf');
    const res = await client.post('/api/v1/signup', {
      origin: 'https://evil.example',
      body: { practice_name: 'Evil', email, password: PASSWORD },
    });
    await expectError(res, 403, 'forbidden_origin');
    expect(server.runtime.accounts.findByEmail(email)).toBeUndefined();
  });

  it('without SMTP: a bad link is 400 invalid_link; a new link is not_configured; signed out it is 401', async () => {
    const anon = new SessionClient(server.url);
    for (const token of ['A'.repeat(43), 'short', 42]) {
      await expectError(await anon.post('/api/v1/signup/verify-email', { body: { token } }), 400, 'invalid_link');
    }
    const extra = { token: 'A'.repeat(43), link: 'x' };
    await expectError(await anon.post('/api/v1/signup/verify-email', { body: extra }), 400, 'invalid_request');
    await expectError(await anon.post('/api/v1/signup/verification'), 401, 'unauthenticated');
    const email = signupEmail('nomail');
    const client = await signUpAndSignIn(server, { practice_name: 'No Mail', email, password: PASSWORD });
    const res = await client.post('/api/v1/signup/verification');
    expect(res.status).toBe(202);
    expect(ACCEPTED.parse(await json(res)).data).toEqual({ email, verification: 'not_configured' });
    expect(server.runtime.accounts.findByEmail(email)!.email_verified_at).toBeNull();
  });
});

describe('sign-up with billing configured (STRIPE_*)', () => {
  const STRIPE = { STRIPE_SECRET_KEY: 'sk_test_x1', STRIPE_PRICE_ID: 'price_x1', STRIPE_WEBHOOK_SECRET: 'whsec_x1' };

  it('is on by default and says the subscription is paid through Stripe; SIGNUP=off still switches it off', async () => {
    for (const [config, enabled] of [
      [STRIPE, true],
      [{ ...STRIPE, SIGNUP: 'off' as const }, false],
    ] as const) {
      const server = await startTestServer({ config, declarations: false });
      try {
        const res = await fetch(`${server.url}/api/v1/signup`);
        expect(SETTINGS.parse(await json(res)).data).toEqual({
          enabled,
          billing: 'stripe',
          email_verification: false,
          operator_contact: null,
        });
      } finally {
        await server.close();
      }
    }
  });
});

describe('sign-up under a flood', () => {
  it('answers 503 server_busy with Retry-After when the password line is full, never 500; each 202 made its account', async () => {
    const server = await startTestServer({
      config: { SIGNUP: 'on' },
      auth: { loginLimits: ROOMY_LIMITS },
      declarations: false,
    });
    try {
      const emails = Array.from({ length: 60 }, () => signupEmail('flood'));
      const answers = await Promise.all(
        emails.map((email) => signUp(server, { practice_name: 'Flood', email, password: PASSWORD })),
      );
      await server.runtime.signup.drain();
      const statuses = answers.map((a) => a.res.status);
      expect(statuses.every((s) => s === 202 || s === 503)).toBe(true);
      expect(statuses).toContain(503);
      for (const [i, { res }] of answers.entries()) {
        if (res.status === 503) {
          await expectError(res, 503, 'server_busy');
          expect(res.headers.get('retry-after')).toBe('1');
        }
        expect(server.runtime.accounts.findByEmail(emails[i]!) !== undefined).toBe(res.status === 202);
      }
    } finally {
      await server.close();
    }
  });
});

describe('sign-up in the OpenAPI document', () => {
  it('describes each operation with its security', async () => {
    const server = await startTestServer({ declarations: false });
    try {
      const doc = await json(await fetch(`${server.url}/api/v1/openapi.json`));
      expect(doc.paths['/api/v1/signup'].get.security).toEqual([]);
      expect(doc.paths['/api/v1/signup'].post.security).toEqual([]);
      expect(Object.keys(doc.paths['/api/v1/signup'].post.responses)).toContain('202');
      expect(doc.paths['/api/v1/signup/verify-email'].post.security).toEqual([]);
      expect(doc.paths['/api/v1/signup/verification'].post.security).toEqual([{ session: [] }]);
      // Each answer with its own schema: a new link (202), or the proof's time when the address has one (200).
      const resend = doc.paths['/api/v1/signup/verification'].post.responses;
      const dataOf = (status: string) => resend[status].content['application/json'].schema.properties.data;
      expect(dataOf('202')).toEqual({ $ref: '#/components/schemas/SignupAccepted' });
      expect(dataOf('200')).toEqual({ $ref: '#/components/schemas/EmailVerified' });
    } finally {
      await server.close();
    }
  });
});

describe('sign-up throttle', () => {
  it('limits sign-ups per email and per client address like sign-in: 429 rate_limited with Retry-After', async () => {
    const server = await startTestServer({
      config: { SIGNUP: 'on' },
      auth: { loginLimits: { perAccount: 2, perIp: 4 } },
    });
    try {
      const email = signupEmail('throttled');
      const body = { practice_name: 'Throttled', email, password: PASSWORD };
      for (let i = 0; i < 2; i++) expect((await signUp(server, body)).res.status).toBe(202);
      const limited = (await signUp(server, body)).res;
      await expectError(limited, 429, 'rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

      for (let i = 0; i < 2; i++) {
        const other = { practice_name: 'Other', email: signupEmail('ip'), password: PASSWORD };
        expect((await signUp(server, other)).res.status).toBe(202);
      }
      const byAddress = await signUp(server, { practice_name: 'x', email: signupEmail('ip'), password: PASSWORD });
      await expectError(byAddress.res, 429, 'rate_limited');
      // Counted apart from sign-in: the owner still signs in.
      await server.runtime.signup.drain();
      expect((await new SessionClient(server.url).login(email, PASSWORD)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
