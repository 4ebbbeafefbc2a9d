import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, stripeSettings } from '../../../server/config';
import type { StripeStandIn } from '../../helpers/stripe-stand-in';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import {
  auditOf,
  billingView,
  checkStatus,
  generateKey,
  newClinic,
  PASSWORD,
  startBillingWorld,
  subscribe,
  subscriptionOf,
} from './billing-world';

describe('billing with Stripe: the console (Subscribe, return from Checkout, Manage billing)', () => {
  let standIn: StripeStandIn;
  let server: TestServer;

  beforeAll(async () => {
    ({ standIn, server } = await startBillingWorld());
  });
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
  });

  it('a new organisation: inactive, Subscribe offered to its owner, no billing account yet', async () => {
    const clinic = await newClinic(server);
    expect(await billingView(clinic)).toEqual({
      mode: 'stripe',
      plan: 'Clinic-Wide Access',
      status: 'inactive',
      expires_at: null,
      renews_at: null,
      ends_at: null,
      ended_reason: null,
      stripe_status: null,
      can_subscribe: true,
      can_manage_billing: false,
    });
    const portal = await clinic.owner.post('/api/v1/billing/portal');
    expect(portal.status).toBe(409);
    expect((await json(portal)).error.code).toBe('no_billing_account');
  });

  it('Subscribe creates a Checkout Session (subscription mode, the organisation, the owner’s e-mail)', async () => {
    const clinic = await newClinic(server);
    const res = await clinic.owner.post('/api/v1/billing/checkout');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const request = standIn.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
    expect(request.body).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': standIn.priceId,
      'line_items[0][quantity]': '1',
      client_reference_id: clinic.organisationId,
      customer_email: clinic.email,
      'metadata[organisation_id]': clinic.organisationId,
      'subscription_data[metadata][organisation_id]': clinic.organisationId,
      success_url: `${server.url}/console/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${server.url}/console/billing?checkout=cancelled`,
    });
    expect(request.body['customer']).toBeUndefined();
    // Nothing is stored until Stripe says it is paid.
    expect(subscriptionOf(server, clinic)).toMatchObject({ status: 'inactive', stripe_customer_id: null });
  });

  it('checkout completed → active until the period end; renewal date shown; Subscribe no longer offered', async () => {
    const clinic = await newClinic(server);
    const { sub, successUrl, sessionId } = await subscribe(standIn, clinic);
    expect(successUrl).toBe(`${server.url}/console/billing?checkout=success&session_id=${sessionId}`);
    const periodEnd = new Date(sub.current_period_end * 1000).toISOString();
    expect(await billingView(clinic)).toMatchObject({
      status: 'active',
      expires_at: periodEnd,
      renews_at: periodEnd,
      ends_at: null,
      ended_reason: null,
      stripe_status: 'active',
      can_subscribe: false,
      can_manage_billing: true,
    });
    const again = await clinic.owner.post('/api/v1/billing/checkout');
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('already_subscribed');
    const audited = await auditOf(server, clinic);
    expect(audited.length).toBeGreaterThanOrEqual(1);
    expect(audited[0]).toMatchObject({ source: 'stripe', reason: 'active', subscription: { status: 'active' } });
    expect(audited[0]!.stripe_event_id).toMatch(/^evt_/);
    // A key works at once.
    expect(await checkStatus(server, await generateKey(clinic))).toBe(200);
  });

  it('back from Checkout before the webhook: checkout/complete applies it now, audited as the owner', async () => {
    const clinic = await newClinic(server);
    standIn.setWebhookUrl(`${standIn.url}/nowhere`); // the webhook never arrives
    try {
      const { sessionId } = await subscribe(standIn, clinic);
      expect(subscriptionOf(server, clinic).status).toBe('inactive');
      const res = await clinic.owner.post('/api/v1/billing/checkout/complete', { body: { session_id: sessionId } });
      expect(res.status).toBe(200);
      expect((await json(res)).data).toMatchObject({ status: 'active', stripe_status: 'active' });
      const audited = await auditOf(server, clinic);
      expect(audited.at(-1)).toMatchObject({ source: 'web', reason: 'checkout_completed', email: clinic.email });
      // Another organisation's Checkout Session is not found; nor is a made-up one.
      const other = await newClinic(server);
      const foreign = await other.owner.post('/api/v1/billing/checkout/complete', { body: { session_id: sessionId } });
      expect(foreign.status).toBe(404);
      expect((await json(foreign)).error.code).toBe('checkout_not_found');
      const madeUp = await other.owner.post('/api/v1/billing/checkout/complete', { body: { session_id: 'cs_nope' } });
      expect(madeUp.status).toBe(404);
      expect(subscriptionOf(server, other).status).toBe('inactive');
    } finally {
      standIn.setWebhookUrl(`${server.url}/api/v1/billing/webhook`);
    }
  });

  it('Manage billing opens the Customer Portal for the organisation’s customer', async () => {
    const clinic = await newClinic(server);
    const { sub } = await subscribe(standIn, clinic);
    const res = await clinic.owner.post('/api/v1/billing/portal');
    expect(res.status).toBe(200);
    const { url } = (await json(res)).data;
    expect(url.startsWith(`${standIn.url}/portal/bps_`)).toBe(true);
    expect(standIn.requests.at(-1)!.body).toEqual({
      customer: sub.customer,
      return_url: `${server.url}/console/billing`,
    });
    // A later Subscribe (after a cancellation) reuses the customer.
    standIn.updateSubscription(sub.id, { status: 'canceled' });
    await standIn.deliver('customer.subscription.deleted', { id: sub.id, object: 'subscription' });
    expect(await clinic.owner.post('/api/v1/billing/checkout').then((r) => r.status)).toBe(200);
    expect(standIn.requests.at(-1)!.body).toMatchObject({ customer: sub.customer });
    expect(standIn.requests.at(-1)!.body['customer_email']).toBeUndefined();
  });

  it('only owners Subscribe, complete and manage; any member sees the billing view', async () => {
    const clinic = await newClinic(server);
    const memberEmail = `member-${clinic.email}`;
    await server.runtime.accounts.createAccount(memberEmail, PASSWORD, {
      organisationId: clinic.organisationId,
      role: 'admin',
    });
    const member = new SessionClient(server.url);
    expect((await member.login(memberEmail, PASSWORD)).status).toBe(200);
    for (const path of ['/api/v1/billing/checkout', '/api/v1/billing/portal']) {
      const res = await member.post(path);
      expect(res.status, path).toBe(403);
      expect((await json(res)).error.code).toBe('forbidden_role');
    }
    const view = await member.get('/api/v1/billing');
    expect((await json(view)).data).toMatchObject({ mode: 'stripe', can_subscribe: false, can_manage_billing: false });
    expect((await new SessionClient(server.url).get('/api/v1/billing')).status).toBe(401);
    // Another site cannot drive Subscribe with the owner's cookie.
    const forged = await clinic.owner.post('/api/v1/billing/checkout', { origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
  });

  it('Stripe down during Subscribe → 503 billing_unavailable with Retry-After, nothing changed', async () => {
    const clinic = await newClinic(server);
    const before = subscriptionOf(server, clinic);
    standIn.setDown(true);
    try {
      const res = await clinic.owner.post('/api/v1/billing/checkout');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('30');
      expect((await json(res)).error).toEqual({
        code: 'billing_unavailable',
        message: 'The payment service could not be reached; nothing was changed',
      });
    } finally {
      standIn.setDown(false);
    }
    expect(subscriptionOf(server, clinic)).toEqual(before);
    expect(server.logs.join('\n')).not.toContain(standIn.secretKey);
  });

  it('the operator’s set-subscription overrides Stripe, audited as such', async () => {
    const clinic = await newClinic(server);
    await subscribe(standIn, clinic);
    await server.runtime.accounts.setSubscription(clinic.email, { status: 'inactive' }, { by: { source: 'admin' } });
    expect(await billingView(clinic)).toMatchObject({ status: 'inactive', ended_reason: 'operator' });
    expect((await auditOf(server, clinic)).at(-1)).toMatchObject({ source: 'admin', reason: 'operator_override' });
  });
});

describe('operator mode (no STRIPE_* variables): today’s behaviour', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('npm start’s defaults are operator mode', () => {
    expect(stripeSettings(loadConfig({ DATA_DIR: server.dataDir }))).toBeNull();
  });

  it('the view says operator; Subscribe, Manage billing, the return and the webhook answer 404', async () => {
    const clinic = await newClinic(server);
    await server.runtime.accounts.setSubscription(clinic.email, { status: 'active', expires: '2020-01-01' });
    expect(await billingView(clinic)).toMatchObject({
      mode: 'operator',
      status: 'inactive',
      ended_reason: 'expired',
      stripe_status: null,
      can_subscribe: false,
      can_manage_billing: false,
    });
    for (const path of ['/api/v1/billing/checkout', '/api/v1/billing/portal']) {
      const res = await clinic.owner.post(path);
      expect(res.status, path).toBe(404);
      expect((await json(res)).error.code).toBe('billing_not_configured');
    }
    const complete = await clinic.owner.post('/api/v1/billing/checkout/complete', { body: { session_id: 'cs_x' } });
    expect(complete.status).toBe(404);
    const webhook = await fetch(`${server.url}/api/v1/billing/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      body: '{}',
    });
    expect(webhook.status).toBe(404);
    expect((await json(webhook)).error.code).toBe('billing_not_configured');
  });
});
