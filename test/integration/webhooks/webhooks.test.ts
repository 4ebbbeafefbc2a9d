import { OPERATOR } from '../../../server/team/team-service';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Alert } from '../../../shared/api/alerts';
import { successEnvelope } from '../../../shared/api/envelope';
import { NewWebhookData, WebhookData, WebhookPayload } from '../../../shared/api/webhook';
import { sydneyToday } from '../../../shared/domain/dates';
import type { Declaration } from '../../../shared/domain/declaration';
import { fixtureDeclarations } from '../../fixtures/declarations';
import { seedAccount, startTestServer, type SeededAccount, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { testBackend } from '../../helpers/shared-backends';
import { waitFor } from '../../helpers/wait-for';
import { json, SessionClient } from '../auth/session-client';
import { recordAlertDirectly } from '../../helpers/record-alert';
import { startReceiver } from '../../helpers/webhook-receiver';

const NEW_WEBHOOK = successEnvelope(NewWebhookData.strict());
const WEBHOOK = successEnvelope(WebhookData.strict());
const MINUTE = 60_000;
const PASSWORD = 'correct horse battery staple';
const HOUR = 60 * MINUTE;
/** Tests receive on 127.0.0.1: private addresses allowed, as WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true does. */
const ALLOW_PRIVATE = { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true };
/** Sessions that outlast the fake clock's days, so the tests sign in once. */
const LONG_SESSIONS = { idleTimeoutMs: 30 * 24 * 3_600_000, absoluteTimeoutMs: 30 * 24 * 3_600_000 };

function fakeClock(start: number) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms), set: (ms: number) => (now = ms) };
}

/** A port nothing listens on: a receiver that is down. */
async function deadPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let alertSeq = 0;
function alert(postcode = '2480'): Alert {
  alertSeq++;
  return {
    id: String(alertSeq),
    created_at: '2026-11-22T01:00:00.000Z',
    kind: 'newly_eligible',
    postcode,
    lga_name: 'Lismore (C)',
    agrn: '9001',
    title: 'NSW Northern Rivers Floods',
    text: `Postcode ${postcode} (Lismore) is now covered by a disaster declaration: telehealth may be billed.`,
  };
}

/** The receiver's check (the README's snippet): HMAC-SHA256 of the raw body, compared in constant time. */
function verifies(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function signIn(server: TestServer, clinic: SeededAccount): Promise<SessionClient> {
  const client = new SessionClient(server.url);
  expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
  return client;
}

const put = (client: SessionClient, body: unknown, options: { origin?: string | null } = {}) =>
  client.request('PUT', '/api/v1/webhook', { body, ...options });

async function getWebhook(client: SessionClient): Promise<WebhookData> {
  const res = await client.get('/api/v1/webhook');
  expect(res.status).toBe(200);
  return WEBHOOK.parse(await res.json()).data;
}

/** A flood over Lismore (postcode 2480), starting on the day the test gives it. */
const LISMORE_FLOOD: Declaration = {
  agrn: '9001',
  title: 'NSW Northern Rivers Floods',
  state: 'NSW',
  hazard_type: 'Flood',
  start_date: '2026-11-22',
  end_date: null,
  url: null,
  lgas: [{ name: 'Lismore (C)', code: '14850' }],
  sources: ['fixture'],
};

const subscriptionOf = (server: TestServer, clinic: SeededAccount) =>
  server.runtime.accounts.subscriptionOf(clinic.accountId)!.id;

describe('webhooks: set, signed delivery, retries, refusals', () => {
  const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let clinic: SeededAccount;
  let client: SessionClient;
  let secret: string;

  beforeAll(async () => {
    server = await startTestServer({ clock: time.clock, config: ALLOW_PRIVATE, auth: LONG_SESSIONS });
    receiver = await startReceiver();
    clinic = await seedAccount(server.runtime);
    client = await signIn(server, clinic);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });
  afterEach(() => {
    receiver.statuses.length = 0;
  });

  it('GET before any PUT: no webhook', async () => {
    expect(await getWebhook(client)).toEqual({ url: null, created_at: null, last_delivery: null });
  });

  it('PUT returns the signing secret once, not cacheable; GET never shows it', async () => {
    const res = await put(client, { url: receiver.url });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const data = NEW_WEBHOOK.parse(await res.json()).data;
    expect(data).toEqual({
      url: receiver.url,
      created_at: time.clock().toISOString(),
      last_delivery: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    secret = data.secret;

    const get = await client.get('/api/v1/webhook');
    const text = await get.text();
    expect(text).not.toContain(secret);
    expect(text).not.toContain('whsec_');
    expect(WEBHOOK.parse(JSON.parse(text)).data).toEqual({
      url: receiver.url,
      created_at: time.clock().toISOString(),
      last_delivery: null,
    });
    // Nor in the log.
    expect(server.logs.join('\n')).not.toContain(secret);
  });

  it('a batch of alerts arrives signed: X-Signature verifies over the raw body, which is the WebhookPayload', async () => {
    const alerts = [alert('2480'), alert('2477')];
    expect(
      await server.runtime.webhooks.enqueueAlerts([{ subscription_id: subscriptionOf(server, clinic), alerts }]),
    ).toBe(1);
    expect((await getWebhook(client)).last_delivery).toEqual({
      status: 'pending',
      attempts: 0,
      last_attempt_at: null,
      http_status: null,
      error: null,
      alert_count: 2,
    });
    expect(await server.runtime.webhooks.runDue()).toBe(1);

    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['user-agent']).toMatch(/^disaster-telehealth-eligibility-webhooks\//);
    expect(delivery!.headers['x-delivery-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(delivery!.headers['x-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifies(secret, delivery!.raw, delivery!.headers['x-signature'])).toBe(true);
    expect(verifies('whsec_wrong', delivery!.raw, delivery!.headers['x-signature'])).toBe(false);
    expect(WebhookPayload.strict().parse(JSON.parse(delivery!.raw.toString('utf8')))).toEqual({
      event: 'alerts',
      alerts,
    });

    expect((await getWebhook(client)).last_delivery).toEqual({
      status: 'delivered',
      attempts: 1,
      last_attempt_at: time.clock().toISOString(),
      http_status: 200,
      error: null,
      alert_count: 2,
    });
    // Nothing left to send.
    time.advance(HOUR);
    expect(await server.runtime.webhooks.runDue()).toBe(0);
  });

  it('a receiver answering 500 gets the same delivery again after the back-off; then delivered, attempts 2', async () => {
    receiver.received.length = 0;
    receiver.statuses.push(500);
    await server.runtime.webhooks.enqueueAlerts([
      { subscription_id: subscriptionOf(server, clinic), alerts: [alert()] },
    ]);
    expect(await server.runtime.webhooks.runDue()).toBe(1);
    const failedAt = time.clock().toISOString();
    expect((await getWebhook(client)).last_delivery).toEqual({
      status: 'retrying',
      attempts: 1,
      last_attempt_at: failedAt,
      http_status: 500,
      error: 'receiver answered HTTP 500',
      alert_count: 1,
    });
    // Not before the first back-off (1 minute).
    time.advance(MINUTE - 1000);
    expect(await server.runtime.webhooks.runDue()).toBe(0);
    time.advance(1000);
    expect(await server.runtime.webhooks.runDue()).toBe(1);

    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received;
    // The same delivery: same id, same bytes, same signature.
    expect(second!.headers['x-delivery-id']).toBe(first!.headers['x-delivery-id']);
    expect(second!.raw.equals(first!.raw)).toBe(true);
    expect(verifies(secret, second!.raw, second!.headers['x-signature'])).toBe(true);
    expect((await getWebhook(client)).last_delivery).toEqual({
      status: 'delivered',
      attempts: 2,
      last_attempt_at: time.clock().toISOString(),
      http_status: 200,
      error: null,
      alert_count: 1,
    });
  });

  it('the worker, once started, sends a new batch by itself', async () => {
    receiver.received.length = 0;
    server.runtime.webhooks.start();
    await server.runtime.webhooks.enqueueAlerts([
      { subscription_id: subscriptionOf(server, clinic), alerts: [alert()] },
    ]);
    await waitFor(() => receiver.received.length === 1, { what: 'the delivery' });
    await waitFor(async () => (await getWebhook(client)).last_delivery?.status === 'delivered', {
      what: 'delivered',
    });
    await server.runtime.webhooks.stop();
  });

  it('PUT again replaces the URL and the secret (a new one, shown once)', async () => {
    const res = await put(client, { url: `${receiver.url}/v2` });
    expect(res.status).toBe(200);
    const data = NEW_WEBHOOK.parse(await res.json()).data;
    expect(data.url).toBe(`${receiver.url}/v2`);
    expect(data.secret).not.toBe(secret);
    secret = data.secret;
    expect((await getWebhook(client)).url).toBe(`${receiver.url}/v2`);
  });

  it('refuses URLs that are not http(s), or carry credentials: 400 invalid_webhook_url; a bad body 400 invalid_request', async () => {
    for (const url of ['ftp://example.com/hook', 'javascript:alert(1)', 'file:///etc/passwd', 'hooks/dte']) {
      const res = await put(client, { url });
      expect(res.status, url).toBe(400);
      expect((await json(res)).error).toEqual({
        code: 'invalid_webhook_url',
        message: 'Webhook URL must be an http(s) URL to a public address',
      });
    }
    expect((await json(await put(client, { url: 'https://user:pw@example.com/' }))).error.code).toBe(
      'invalid_webhook_url',
    );
    for (const body of [
      {},
      { url: 42 },
      { url: `https://example.com/${'x'.repeat(2000)}` },
      { url: 'https://a.example/', x: 1 },
    ]) {
      const res = await put(client, body);
      expect(res.status).toBe(400);
      expect((await json(res)).error.code).toBe('invalid_request');
    }
    // Still the webhook set before.
    expect((await getWebhook(client)).url).toBe(`${receiver.url}/v2`);
  });

  it('without a session: 401 unauthenticated; a session cookie from another site: 403 forbidden_origin', async () => {
    const anonymous = new SessionClient(server.url);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await anonymous.request(
        method,
        '/api/v1/webhook',
        method === 'PUT' ? { body: { url: receiver.url } } : {},
      );
      expect(res.status, method).toBe(401);
      expect((await json(res)).error.code).toBe('unauthenticated');
    }
    for (const method of ['PUT', 'DELETE']) {
      const res = await client.request(method, '/api/v1/webhook', {
        origin: 'https://evil.example',
        ...(method === 'PUT' ? { body: { url: 'https://evil.example/hook' } } : {}),
      });
      expect(res.status, method).toBe(403);
      expect((await json(res)).error.code).toBe('forbidden_origin');
    }
    expect((await getWebhook(client)).url).toBe(`${receiver.url}/v2`);
  });

  it('GET with x-api-key works (never the secret); a bad key 401, an inactive subscription 403', async () => {
    const res = await fetch(`${server.url}/api/v1/webhook`, { headers: { 'x-api-key': clinic.apiKey! } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(secret);
    expect(WEBHOOK.parse(JSON.parse(text)).data.url).toBe(`${receiver.url}/v2`);

    const bad = await fetch(`${server.url}/api/v1/webhook`, {
      headers: { 'x-api-key': 'sk_live_000000000000000000000000000000000000000' },
    });
    expect(bad.status).toBe(401);
    expect((await json(bad)).error.code).toBe('invalid_api_key');

    const lapsed = await seedAccount(server.runtime, { status: 'inactive' });
    const byKey = await fetch(`${server.url}/api/v1/webhook`, { headers: { 'x-api-key': lapsed.apiKey! } });
    expect(byKey.status).toBe(403);
    expect((await json(byKey)).error.code).toBe('subscription_inactive');
  });

  it('an inactive subscription cannot set a webhook: 403 subscription_inactive', async () => {
    const lapsed = await seedAccount(server.runtime, { status: 'inactive' });
    const lapsedClient = await signIn(server, lapsed);
    const res = await put(lapsedClient, { url: receiver.url });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe('subscription_inactive');
  });

  it('send test: one signed {event: "test"} delivery now, its outcome answered; not queued; 404 without a webhook', async () => {
    const clinic = await seedAccount(server.runtime);
    const client = await signIn(server, clinic);
    expect((await client.post('/api/v1/webhook/test')).status).toBe(404);
    const { secret } = NEW_WEBHOOK.parse(await json(await put(client, { url: receiver.url }))).data;
    const before = receiver.received.length;
    const res = await client.post('/api/v1/webhook/test');
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ delivered: true, http_status: 200, error: null });
    const delivery = receiver.received[before]!;
    expect(verifies(secret, delivery.raw, delivery.headers['x-signature'])).toBe(true);
    expect(WebhookPayload.strict().parse(JSON.parse(delivery.raw.toString('utf8')))).toEqual({
      event: 'test',
      alerts: [],
    });
    expect(await server.runtime.webhooks.queued()).toEqual([]);
    expect((await getWebhook(client)).last_delivery).toBeNull();

    receiver.statuses.push(500);
    expect((await json(await client.post('/api/v1/webhook/test'))).data).toEqual({
      delivered: false,
      http_status: 500,
      error: 'receiver answered HTTP 500',
    });
    expect((await client.get('/api/v1/webhook/test')).status).toBe(405);

    // A member sees the webhook but sends nothing.
    const organisationId = server.runtime.accounts.membershipOf(clinic.accountId)!.organisation_id;
    const email = `gp-${process.pid}@webhook-test.example`;
    await server.runtime.team.add(OPERATOR, organisationId, email, PASSWORD, 'member');
    const member = new SessionClient(server.url);
    expect((await member.login(email, PASSWORD)).status).toBe(200);
    const refused = await member.post('/api/v1/webhook/test');
    expect(refused.status).toBe(403);
    expect((await json(refused)).error.code).toBe('forbidden_role');
    expect(receiver.received).toHaveLength(before + 2);
  });

  it('DELETE removes the webhook and its queued deliveries; again: 404 no_webhook', async () => {
    receiver.received.length = 0;
    receiver.statuses.push(503);
    await server.runtime.webhooks.enqueueAlerts([
      { subscription_id: subscriptionOf(server, clinic), alerts: [alert()] },
    ]);
    await server.runtime.webhooks.runDue();
    expect(receiver.received).toHaveLength(1);

    const res = await client.request('DELETE', '/api/v1/webhook');
    expect(res.status).toBe(200);
    expect(await getWebhook(client)).toEqual({ url: null, created_at: null, last_delivery: null });
    time.advance(HOUR);
    expect(await server.runtime.webhooks.runDue()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    // Alerts for a subscription without a webhook are not queued.
    expect(
      await server.runtime.webhooks.enqueueAlerts([
        { subscription_id: subscriptionOf(server, clinic), alerts: [alert()] },
      ]),
    ).toBe(0);

    const again = await client.request('DELETE', '/api/v1/webhook');
    expect(again.status).toBe(404);
    expect((await json(again)).error).toEqual({ code: 'no_webhook', message: 'No webhook is set' });
  });
});

describe('webhooks in the OpenAPI document', () => {
  it('lists PUT, GET and DELETE /api/v1/webhook and the delivery (OpenAPI 3.1 webhooks), every $ref resolving', async () => {
    const server = await startTestServer();
    try {
      const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
      const path = doc.paths['/api/v1/webhook'];
      expect(Object.keys(path).sort()).toEqual(['delete', 'get', 'put']);
      expect(Object.keys(path.put.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
      expect(path.get.security).toEqual([{ session: [] }, { apiKey: [] }]);
      expect(Object.keys(path.delete.responses)).toEqual(expect.arrayContaining(['200', '404']));
      expect(doc.webhooks.alerts.post.requestBody.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/WebhookPayload',
      });
      const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
      for (const name of new Set(refs)) expect(doc.components.schemas[name], name).toBeDefined();
      expect(doc.components.schemas.NewWebhook.required).toContain('secret');
      expect(doc.components.schemas.Webhook.properties).not.toHaveProperty('secret');
    } finally {
      await server.close();
    }
  });
});

describe('webhooks: a receiver down for over a day', () => {
  it('is retried with back-off (1 min, doubling, at most 1 h) for 24 h after the first attempt, then failed', async () => {
    const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
    const server = await startTestServer({ clock: time.clock, config: ALLOW_PRIVATE, auth: LONG_SESSIONS });
    try {
      const clinic = await seedAccount(server.runtime);
      const client = await signIn(server, clinic);
      const port = await deadPort();
      expect((await put(client, { url: `http://127.0.0.1:${port}/hook` })).status).toBe(200);
      const start = time.clock().getTime();
      await server.runtime.webhooks.enqueueAlerts([
        { subscription_id: subscriptionOf(server, clinic), alerts: [alert()] },
      ]);

      const attemptsAt: number[] = [];
      for (let step = 0; step < 100; step++) {
        expect(await server.runtime.webhooks.runDue()).toBe(1);
        attemptsAt.push(time.clock().getTime() - start);
        if ((await getWebhook(client)).last_delivery!.status === 'failed') break;
        const [queued] = await server.runtime.webhooks.queued();
        // Not a moment before it is due.
        time.set(Date.parse(queued!.next_attempt_at) - 1);
        expect(await server.runtime.webhooks.runDue()).toBe(0);
        time.advance(1);
      }
      const minutes = attemptsAt.map((ms) => ms / MINUTE);
      // 0, +1, +2, +4, … +32, then hourly, the last one at 24 h.
      expect(minutes.slice(0, 8)).toEqual([0, 1, 3, 7, 15, 31, 63, 123]);
      expect(minutes.at(-1)).toBe(24 * 60);
      for (let i = 7; i < minutes.length - 1; i++) expect(minutes[i]! - minutes[i - 1]!).toBe(60);
      const last = (await getWebhook(client)).last_delivery!;
      expect(last).toEqual({
        status: 'failed',
        attempts: minutes.length,
        last_attempt_at: new Date(start + 24 * HOUR).toISOString(),
        http_status: null,
        error: 'connection refused',
        alert_count: 1,
      });
      time.advance(10 * HOUR);
      expect(await server.runtime.webhooks.runDue()).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('webhooks: the worker on its own timer, with a short back-off (WebhookTuning)', () => {
  it('retries a dead receiver by itself and gives up after giveUpAfterMs', async () => {
    const server = await startTestServer({
      config: ALLOW_PRIVATE,
      webhooks: { retry: { firstDelayMs: 20, maxDelayMs: 80, giveUpAfterMs: 400 }, pollIntervalMs: 10 },
    });
    try {
      const clinic = await seedAccount(server.runtime);
      const client = await signIn(server, clinic);
      expect((await put(client, { url: `http://127.0.0.1:${await deadPort()}/hook` })).status).toBe(200);
      server.runtime.webhooks.start();
      await server.runtime.webhooks.enqueueAlerts([
        { subscription_id: subscriptionOf(server, clinic), alerts: [alert()] },
      ]);
      const { value } = await waitFor(
        async () => {
          const last = (await getWebhook(client)).last_delivery;
          return last?.status === 'failed' && last;
        },
        { what: 'the delivery to fail', timeoutMs: 5000 },
      );
      // 0, 20, 60, 140, 220, 300, 380, 400 ms: at least 6 attempts.
      expect(value.attempts).toBeGreaterThanOrEqual(6);
      expect(value.error).toBe('connection refused');
      expect(await server.runtime.webhooks.queued()).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('webhooks: private addresses when not allowed (WEBHOOK_ALLOW_PRIVATE_ADDRESSES unset)', () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let clinic: SeededAccount;
  let client: SessionClient;

  beforeAll(async () => {
    server = await startTestServer();
    receiver = await startReceiver();
    clinic = await seedAccount(server.runtime);
    client = await signIn(server, clinic);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it.each([
    'http://127.0.0.1/hook',
    'http://127.0.0.2:8080/hook',
    'http://10.1.2.3/hook',
    'http://192.168.0.10/hook',
    'http://172.20.0.1/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.7/hook',
    'http://0.0.0.0/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    // Issue #22: IPv6 ranges the hand-written list missed (IPv4-translated, Teredo, ORCHIDv2, documentation, SRv6).
    'http://[::ffff:0:127.0.0.1]:4555/a',
    'http://[2001::1]/hook',
    'http://[2001:20::1]/hook',
    'http://[3fff::1]/hook',
    'http://[5f00::1]/hook',
  ])('PUT %s: 400 invalid_webhook_url', async (url) => {
    const res = await put(client, { url });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('invalid_webhook_url');
  });

  it('a host name that resolves to loopback is refused at delivery: nothing sent, the error shown', async () => {
    const url = `http://localhost:${receiver.port}/hooks/dte`;
    expect((await put(client, { url })).status).toBe(200);
    await server.runtime.webhooks.enqueueAlerts([
      { subscription_id: subscriptionOf(server, clinic), alerts: [alert()] },
    ]);
    expect(await server.runtime.webhooks.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(0);
    const last = (await getWebhook(client)).last_delivery!;
    expect(last).toMatchObject({ status: 'retrying', attempts: 1, http_status: null });
    expect(last.error).toMatch(/^localhost resolves to a loopback address \((127\.0\.0\.1|::1)\); not delivered$/);
  });
});

describe('webhooks: the queue survives a restart', () => {
  it('a delivery queued (and failed once) by one server is sent by the next one on the same data', async () => {
    const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
    const dataDir = await tempDir();
    const receiver = await startReceiver();
    let first: TestServer | undefined = await startTestServer({
      dataDir,
      clock: time.clock,
      config: ALLOW_PRIVATE,
      auth: LONG_SESSIONS,
    });
    let second: TestServer | undefined;
    try {
      const clinic = await seedAccount(first.runtime);
      const client = await signIn(first, clinic);
      const created = NEW_WEBHOOK.parse(await json(await put(client, { url: receiver.url }))).data;
      receiver.statuses.push(502);
      const alerts = [alert()];
      await first.runtime.webhooks.enqueueAlerts([{ subscription_id: subscriptionOf(first, clinic), alerts }]);
      expect(await first.runtime.webhooks.runDue()).toBe(1);
      expect(receiver.received).toHaveLength(1);
      await first.close();
      first = undefined;

      time.advance(2 * MINUTE);
      second = await startTestServer({
        dataDir,
        clock: time.clock,
        config: ALLOW_PRIVATE,
        auth: LONG_SESSIONS,
        declarations: false,
      });
      second.runtime.webhooks.start();
      await waitFor(() => receiver.received.length === 2, { what: 'the delivery after the restart' });
      const resent = receiver.received[1]!;
      expect(verifies(created.secret, resent.raw, resent.headers['x-signature'])).toBe(true);
      expect(JSON.parse(resent.raw.toString('utf8'))).toEqual({ event: 'alerts', alerts });
      const client2 = await signIn(second, clinic);
      await waitFor(async () => (await getWebhook(client2)).last_delivery?.status === 'delivered', {
        what: 'delivered',
      });
      expect((await getWebhook(client2)).last_delivery).toMatchObject({ status: 'delivered', attempts: 2 });
    } finally {
      await first?.close();
      await second?.close();
      await receiver.close();
    }
  });
});

describe('webhooks: two servers on the same data', () => {
  it('claim each delivery in one update: every delivery is sent once, whichever server sends it', async () => {
    const dataDir = await tempDir();
    const receiver = await startReceiver();
    const a = await startTestServer({ dataDir, config: ALLOW_PRIVATE, webhooks: { concurrency: 2 } });
    const b = await startTestServer({
      dataDir,
      config: ALLOW_PRIVATE,
      webhooks: { concurrency: 2 },
      declarations: false,
    });
    try {
      const clinic = await seedAccount(a.runtime);
      const client = await signIn(a, clinic);
      expect((await put(client, { url: receiver.url })).status).toBe(200);
      const subscription = subscriptionOf(a, clinic);
      for (let i = 0; i < 8; i++) {
        await a.runtime.webhooks.enqueueAlerts([{ subscription_id: subscription, alerts: [alert()] }]);
      }
      await waitFor(async () => (await b.runtime.webhooks.queued()).length === 8, { what: 'b to see the queue' });
      const [sentByA, sentByB] = await Promise.all([a.runtime.webhooks.runDue(), b.runtime.webhooks.runDue()]);
      expect(sentByA + sentByB).toBe(8);
      const ids = receiver.received.map((r) => r.headers['x-delivery-id']);
      expect(ids).toHaveLength(8);
      expect(new Set(ids).size).toBe(8);
    } finally {
      await a.close();
      await b.close();
      await receiver.close();
    }
  });
});

describe('webhooks: set on one instance, the refresh processed by another', () => {
  // One instance per data directory on the JSON default: only the shared backends have two that must agree.
  it.skipIf(testBackend() === 'json')(
    'the instance that processes the refresh queues the delivery for the webhook set a moment ago elsewhere',
    async () => {
      const dataDir = await tempDir();
      const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
      const base = fixtureDeclarations(sydneyToday(time.clock()));
      const receiver = await startReceiver();
      const a = await startTestServer({ dataDir, clock: time.clock, config: ALLOW_PRIVATE, declarations: base });
      const b = await startTestServer({ dataDir, clock: time.clock, config: ALLOW_PRIVATE, declarations: false });
      try {
        const clinic = await seedAccount(a.runtime);
        const client = await signIn(b, clinic);
        expect((await client.request('PUT', '/api/v1/catchment', { body: { postcodes: ['2480'] } })).status).toBe(200);
        const refreshWith = async (declarations: Declaration[]) => {
          time.advance(MINUTE);
          await a.runtime.declarations.store.update((file) => {
            file.declarations = declarations;
            file.last_updated = time.clock().toISOString();
          });
          await a.runtime.alerts.settled();
        };
        await refreshWith(base); // the catchment's baseline
        const { secret } = NEW_WEBHOOK.parse(await json(await put(client, { url: receiver.url }))).data;
        await refreshWith([...base, { ...LISMORE_FLOOD, start_date: sydneyToday(time.clock()) }]);

        await waitFor(async () => (await a.runtime.webhooks.queued()).length === 1, { what: 'the delivery queued' });
        expect(await a.runtime.webhooks.runDue()).toBe(1);
        const [delivery] = receiver.received;
        expect(verifies(secret, delivery!.raw, delivery!.headers['x-signature'])).toBe(true);
        const payload = WebhookPayload.strict().parse(JSON.parse(delivery!.raw.toString('utf8')));
        expect(payload.alerts.map((x) => [x.kind, x.postcode])).toEqual([['newly_eligible', '2480']]);
        expect((await getWebhook(client)).last_delivery).toMatchObject({ status: 'delivered', alert_count: 1 });
      } finally {
        await a.close();
        await b.close();
        await receiver.close();
      }
    },
  );
});

describe('webhooks end to end: a refresh that makes a catchment postcode eligible → one signed delivery', () => {
  it('delivers the newly_eligible alerts of the refresh, signed', async () => {
    const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
    const base = fixtureDeclarations(sydneyToday(time.clock()));
    const server = await startTestServer({
      clock: time.clock,
      config: ALLOW_PRIVATE,
      auth: LONG_SESSIONS,
      declarations: base,
    });
    const receiver = await startReceiver();
    try {
      server.runtime.webhooks.start();
      const clinic = await seedAccount(server.runtime);
      const client = await signIn(server, clinic);
      const { secret } = NEW_WEBHOOK.parse(await json(await put(client, { url: receiver.url }))).data;
      expect((await client.request('PUT', '/api/v1/catchment', { body: { postcodes: ['2480'] } })).status).toBe(200);

      const refreshWith = async (declarations: Declaration[]) => {
        time.advance(MINUTE);
        await server.runtime.declarations.store.update((file) => {
          file.declarations = declarations;
          file.last_updated = time.clock().toISOString();
        });
        await server.runtime.alerts.settled();
      };
      await refreshWith(base); // the catchment's baseline: no alert
      await refreshWith([...base, { ...LISMORE_FLOOD, start_date: sydneyToday(time.clock()) }]);

      await waitFor(() => receiver.received.length === 1, { what: 'the webhook delivery', timeoutMs: 5000 });
      const [delivery] = receiver.received;
      expect(verifies(secret, delivery!.raw, delivery!.headers['x-signature'])).toBe(true);
      const payload = WebhookPayload.strict().parse(JSON.parse(delivery!.raw.toString('utf8')));
      expect(payload.alerts.map((a) => [a.kind, a.postcode, a.agrn])).toEqual([['newly_eligible', '2480', '9001']]);
      const listed = await json(await client.get('/api/v1/alerts'));
      expect(payload.alerts).toEqual(listed.data.alerts);
      await waitFor(async () => (await getWebhook(client)).last_delivery?.status === 'delivered', {
        what: 'delivered',
      });
    } finally {
      await server.close();
      await receiver.close();
    }
  });
});

describe('webhooks: alerts committed while nothing was queued (a stop between the two)', () => {
  it('are queued when the worker starts, once; a new webhook gets only alerts from its creation on', async () => {
    const server = await startTestServer({ config: ALLOW_PRIVATE });
    const receiver = await startReceiver();
    try {
      const clinic = await seedAccount(server.runtime);
      const client = await signIn(server, clinic);
      const subscription = subscriptionOf(server, clinic);
      const commitAlert = (postcode: string) =>
        recordAlertDirectly(server.runtime, { ...alert(postcode), subscription_id: subscription });
      // Kept from before the webhook: never sent to it.
      await commitAlert('4000');
      expect((await put(client, { url: receiver.url })).status).toBe(200);
      // Committed, but the process stopped before queuing it: no delivery in the queue.
      const missedId = await commitAlert('2480');
      expect(await server.runtime.webhooks.queued()).toHaveLength(0);

      expect(await server.runtime.webhooks.catchUp()).toBe(1);
      await server.runtime.webhooks.runDue();
      expect(receiver.received).toHaveLength(1);
      const payload = WebhookPayload.strict().parse(JSON.parse(receiver.received[0]!.raw.toString('utf8')));
      expect(payload.alerts.map((a) => [a.id, a.postcode])).toEqual([[missedId, '2480']]);

      // Caught up: neither a second catch-up nor the live batch that carried the same alert queue it again.
      expect(await server.runtime.webhooks.catchUp()).toBe(0);
      const [same] = await server.runtime.alerts.list(subscription, String(Number(missedId) - 1));
      expect(await server.runtime.webhooks.enqueueAlerts([{ subscription_id: subscription, alerts: [same!] }])).toBe(0);
      await server.runtime.webhooks.runDue();
      expect(receiver.received).toHaveLength(1);
    } finally {
      await server.close();
      await receiver.close();
    }
  });
});
