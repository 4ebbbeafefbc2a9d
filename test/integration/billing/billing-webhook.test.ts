import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeInvoiceObject, stripeSubscriptionObject, type StripeStandIn } from '../../helpers/stripe-stand-in';
import type { TestServer } from '../../helpers/test-server';
import { json } from '../auth/session-client';
import {
  auditOf,
  billingView,
  checkStatus,
  DAY,
  generateKey,
  newClinic,
  nowSeconds,
  startBillingWorld,
  subscribe,
  subscriptionOf,
  type Clinic,
} from './billing-world';

describe('billing with Stripe: the webhook', () => {
  let standIn: StripeStandIn;
  let server: TestServer;
  const webhookUrl = () => `${server.url}/api/v1/billing/webhook`;

  beforeAll(async () => {
    ({ standIn, server } = await startBillingWorld());
  });
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
  });

  /** A subscribed clinic with a working key. */
  async function paying(): Promise<{
    clinic: Clinic;
    sub: ReturnType<StripeStandIn['createSubscription']>;
    key: string;
  }> {
    const clinic = await newClinic(server);
    const { sub } = await subscribe(standIn, clinic);
    const key = await generateKey(clinic);
    expect(await checkStatus(server, key)).toBe(200);
    return { clinic, sub, key };
  }

  const outcomeOf = async (res: Response) => {
    expect(res.status).toBe(200);
    return (await json(res)).data.outcome as string;
  };

  it('renewal: the period moves on and access with it', async () => {
    const { clinic, sub } = await paying();
    const next = sub.current_period_end + 30 * DAY;
    standIn.updateSubscription(sub.id, { current_period_start: sub.current_period_end, current_period_end: next });
    const res = await standIn.deliver('invoice.paid', stripeInvoiceObject(sub.id, sub.customer));
    expect(await outcomeOf(res)).toBe('applied');
    expect(await billingView(clinic)).toMatchObject({
      status: 'active',
      renews_at: new Date(next * 1000).toISOString(),
      expires_at: new Date(next * 1000).toISOString(),
    });
    expect((await auditOf(server, clinic)).at(-1)).toMatchObject({ source: 'stripe', reason: 'active' });
  });

  it('payment failed → active for the grace days after the failed renewal, then inactive (403)', async () => {
    const { clinic, sub, key } = await paying();
    const failedAt = nowSeconds() - DAY;
    standIn.updateSubscription(sub.id, {
      status: 'past_due',
      current_period_start: failedAt,
      current_period_end: failedAt + 30 * DAY,
    });
    expect(
      await outcomeOf(await standIn.deliver('invoice.payment_failed', stripeInvoiceObject(sub.id, sub.customer))),
    ).toBe('applied');
    expect(await billingView(clinic)).toMatchObject({
      status: 'active',
      stripe_status: 'past_due',
      renews_at: null,
      ends_at: new Date((failedAt + 3 * DAY) * 1000).toISOString(),
      ended_reason: 'payment_failed',
    });
    expect(await checkStatus(server, key)).toBe(200);
    // Stripe retried for more than the grace days.
    standIn.updateSubscription(sub.id, { current_period_start: nowSeconds() - 4 * DAY });
    await outcomeOf(await standIn.deliver('invoice.payment_failed', stripeInvoiceObject(sub.id, sub.customer)));
    expect(await checkStatus(server, key)).toBe(403);
    expect(await billingView(clinic)).toMatchObject({ status: 'inactive', ended_reason: 'payment_failed' });
    // Then it gave up.
    standIn.updateSubscription(sub.id, { status: 'unpaid' });
    await outcomeOf(await standIn.deliver('customer.subscription.updated', { id: sub.id, object: 'subscription' }));
    expect(await billingView(clinic)).toMatchObject({
      status: 'inactive',
      ended_reason: 'unpaid',
      can_subscribe: false,
    });
  });

  it('cancelled in the Customer Portal → 403 API subscription is inactive on the next check', async () => {
    const { clinic, key } = await paying();
    const portal = (await json(await clinic.owner.post('/api/v1/billing/portal'))).data.url as string;
    expect(await (await fetch(portal)).text()).toContain('<button type="submit">Cancel subscription</button>');
    const cancelled = await fetch(`${portal}/cancel`, { method: 'POST', redirect: 'manual' });
    expect(cancelled.headers.get('location')).toBe(`${server.url}/console/billing`);
    const res = await fetch(`${server.url}/api/v1/check-postcode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ postcode: '2480' }),
    });
    expect(res.status).toBe(403);
    expect((await json(res)).error.message).toBe('API subscription is inactive');
    expect(await billingView(clinic)).toMatchObject({
      status: 'inactive',
      ended_reason: 'cancelled',
      stripe_status: 'canceled',
      can_subscribe: true,
    });
  });

  it('cancel at period end: still active, no renewal, ends at the period end', async () => {
    const { clinic, sub } = await paying();
    standIn.updateSubscription(sub.id, { cancel_at_period_end: true });
    await outcomeOf(await standIn.deliver('customer.subscription.updated', { id: sub.id, object: 'subscription' }));
    expect(await billingView(clinic)).toMatchObject({
      status: 'active',
      renews_at: null,
      ends_at: new Date(sub.current_period_end * 1000).toISOString(),
      ended_reason: 'cancelled',
    });
  });

  it('an event delivered twice (and twice at once) applies once and is audited once', async () => {
    const { clinic, sub } = await paying();
    standIn.updateSubscription(sub.id, { cancel_at_period_end: true });
    const id = `evt_twice_${sub.id}`;
    const first = await standIn.deliver(
      'customer.subscription.updated',
      { id: sub.id, object: 'subscription' },
      { id },
    );
    expect(await outcomeOf(first)).toBe('applied');
    const second = await standIn.deliver(
      'customer.subscription.updated',
      { id: sub.id, object: 'subscription' },
      { id },
    );
    expect(await outcomeOf(second)).toBe('duplicate');
    expect((await auditOf(server, clinic)).filter((e) => e.stripe_event_id === id)).toHaveLength(1);

    standIn.updateSubscription(sub.id, { status: 'canceled' });
    const racing = `evt_racing_${sub.id}`;
    const outcomes = await Promise.all(
      [0, 1].map(async () =>
        outcomeOf(
          await standIn.deliver(
            'customer.subscription.deleted',
            { id: sub.id, object: 'subscription' },
            { id: racing },
          ),
        ),
      ),
    );
    expect(outcomes.sort()).toEqual(['applied', 'duplicate']);
    expect((await auditOf(server, clinic)).filter((e) => e.stripe_event_id === racing)).toHaveLength(1);
  });

  it('out of order: an old "created" arriving after the cancellation does not bring access back', async () => {
    const { clinic, sub, key } = await paying();
    const asCreated = stripeSubscriptionObject({ ...sub }, standIn.priceId);
    standIn.updateSubscription(sub.id, { status: 'canceled', canceled_at: nowSeconds() });
    await outcomeOf(await standIn.deliver('customer.subscription.deleted', { id: sub.id, object: 'subscription' }));
    const late = await standIn.deliver('customer.subscription.created', asCreated);
    expect(['unchanged', 'applied']).toContain(await outcomeOf(late));
    expect(subscriptionOf(server, clinic)).toMatchObject({ status: 'inactive', stripe_status: 'canceled' });
    expect(await checkStatus(server, key)).toBe(403);
  });

  it('a new subscription after a cancelled one wins; the old one’s late events do not take access away', async () => {
    const { clinic, sub: old } = await paying();
    standIn.updateSubscription(old.id, { status: 'canceled' });
    await standIn.deliver('customer.subscription.deleted', { id: old.id, object: 'subscription' });
    const { sub: renewed } = await subscribe(standIn, clinic);
    expect(renewed.id).not.toBe(old.id);
    expect(subscriptionOf(server, clinic)).toMatchObject({ status: 'active', stripe_subscription_id: renewed.id });
    await outcomeOf(await standIn.deliver('customer.subscription.updated', { id: old.id, object: 'subscription' }));
    expect(subscriptionOf(server, clinic)).toMatchObject({ status: 'active', stripe_subscription_id: renewed.id });
  });

  it('bad, stale or missing signature → 400 invalid_signature, nothing changed', async () => {
    const { clinic, sub } = await paying();
    standIn.updateSubscription(sub.id, { status: 'canceled' });
    const before = subscriptionOf(server, clinic);
    for (const signature of ['bad', 'stale', 'missing'] as const) {
      const res = await standIn.deliver(
        'customer.subscription.deleted',
        { id: sub.id, object: 'subscription' },
        { signature, id: `evt_${signature}_${sub.id}` },
      );
      expect(res.status, signature).toBe(400);
      expect((await json(res)).error).toEqual({
        code: 'invalid_signature',
        message: 'Invalid or missing Stripe signature',
      });
    }
    expect(subscriptionOf(server, clinic)).toEqual(before);
    const store = await server.runtime.storage.accounts();
    expect(store.current.billing_events.some((e) => e.id.endsWith(sub.id))).toBe(false);
  });

  it('a body that is not JSON, not declared JSON, or too large is refused', async () => {
    const sign = (payload: string) =>
      Stripe.webhooks.generateTestHeaderString({ payload, secret: standIn.webhookSecret });
    const notJson = 'this is not JSON';
    const res = await fetch(webhookUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': sign(notJson) },
      body: notJson,
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('invalid_json');
    const payload = JSON.stringify({ id: 'evt_form', object: 'event', type: 'invoice.paid', data: { object: {} } });
    const form = await fetch(webhookUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'stripe-signature': sign(payload) },
      body: payload,
    });
    expect(form.status).toBe(415);
    const huge = JSON.stringify({ id: 'evt_huge', padding: 'x'.repeat(2 * 1024 * 1024) });
    const tooLarge = await fetch(webhookUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': sign(huge) },
      body: huge,
    });
    expect(tooLarge.status).toBe(413);
    expect((await json(tooLarge)).error.code).toBe('payload_too_large');
    expect((await fetch(webhookUrl())).status).toBe(405);
  });

  it('an event for an unknown organisation: 200 unknown_organisation, logged, nothing changed', async () => {
    const stranger = standIn.createSubscription({ metadata: { organisation_id: 'not-ours' } });
    const res = await standIn.deliver('customer.subscription.created', { id: stranger.id, object: 'subscription' });
    expect(await outcomeOf(res)).toBe('unknown_organisation');
    expect(server.logs.some((line) => line.includes('names no organisation'))).toBe(true);
    const store = await server.runtime.storage.accounts();
    expect(store.current.subscriptions.some((s) => s.stripe_subscription_id === stranger.id)).toBe(false);
  });

  it('events it does not use are ignored', async () => {
    expect(await outcomeOf(await standIn.deliver('charge.succeeded', { id: 'ch_1', object: 'charge' }))).toBe(
      'ignored',
    );
    // An invoice of a subscription Stripe does not know.
    const unknown = stripeInvoiceObject('sub_unknown', 'cus_unknown');
    expect(await outcomeOf(await standIn.deliver('invoice.paid', unknown))).toBe('ignored');
  });

  it('Stripe unreachable while handling → 503 (Stripe retries), the event not recorded; the retry applies', async () => {
    const { clinic, sub, key } = await paying();
    standIn.updateSubscription(sub.id, { status: 'canceled' });
    const id = `evt_retry_${sub.id}`;
    standIn.setDown(true);
    try {
      const res = await standIn.deliver(
        'customer.subscription.deleted',
        { id: sub.id, object: 'subscription' },
        { id },
      );
      expect(res.status).toBe(503);
      expect((await json(res)).error.code).toBe('billing_unavailable');
    } finally {
      standIn.setDown(false);
    }
    expect(await checkStatus(server, key)).toBe(200);
    const retried = await standIn.deliver(
      'customer.subscription.deleted',
      { id: sub.id, object: 'subscription' },
      { id },
    );
    expect(await outcomeOf(retried)).toBe('applied');
    expect(await checkStatus(server, key)).toBe(403);
    expect(subscriptionOf(server, clinic).ended_reason).toBe('cancelled');
  });

  /** Log lines at error level or above: a validly signed event is never a server error. */
  const serverErrors = () => server.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

  it('a validly signed event that names no subscription → 200 ignored, nothing changed', async () => {
    const { clinic, sub, key } = await paying();
    const before = subscriptionOf(server, clinic);
    const odd: [string, object | null, Record<string, unknown>?][] = [
      ['customer.subscription.updated', null],
      ['invoice.paid', null],
      ['checkout.session.completed', null],
      ['customer.subscription.deleted', { object: 'subscription' }, { data: undefined }],
      ['customer.subscription.deleted', { id: 42, object: 'subscription' }],
      ['customer.subscription.deleted', { id: '', object: 'subscription' }],
      ['customer.subscription.deleted', { id: `${sub.id}/../../customers/${sub.customer}`, object: 'subscription' }],
      ['invoice.paid', { object: 'invoice', subscription: { id: 42 } }],
      ['checkout.session.completed', { object: 'checkout.session', mode: 'subscription', subscription: [sub.id] }],
    ];
    for (const [type, object, event] of odd) {
      const res = await standIn.deliver(type, object, { event });
      expect(await outcomeOf(res), `${type} ${JSON.stringify(object)}`).toBe('ignored');
    }
    expect(subscriptionOf(server, clinic)).toEqual(before);
    expect(await checkStatus(server, key)).toBe(200);
    expect(serverErrors()).toEqual([]);
  });

  it('an event without `created` is applied from Stripe as any other', async () => {
    const { clinic, sub, key } = await paying();
    standIn.updateSubscription(sub.id, { status: 'canceled' });
    const res = await standIn.deliver(
      'customer.subscription.deleted',
      { id: sub.id, object: 'subscription' },
      { event: { created: undefined } },
    );
    expect(await outcomeOf(res)).toBe('applied');
    expect(await checkStatus(server, key)).toBe(403);
    expect(subscriptionOf(server, clinic)).toMatchObject({ status: 'inactive', stripe_status: 'canceled' });
  });

  it('a subscription Stripe does not know gives no access, whatever the event’s copy says', async () => {
    const clinic = await newClinic(server);
    // The event: no `created`, and an "active" copy without a period, naming the clinic.
    const copy = { ...stripeSubscriptionObject(standIn.createSubscription({}), standIn.priceId), items: undefined };
    standIn.deleteSubscription(copy.id);
    for (const type of ['customer.subscription.created', 'customer.subscription.updated']) {
      const res = await standIn.deliver(
        type,
        { ...copy, status: 'active', metadata: { organisation_id: clinic.organisationId } },
        { event: { created: undefined } },
      );
      expect(await outcomeOf(res)).toBe('ignored');
    }
    expect(await billingView(clinic)).toMatchObject({ status: 'inactive', expires_at: null, stripe_status: null });
    expect(serverErrors()).toEqual([]);
  });

  it('Stripe no longer knows the clinic’s subscription → its access ends, audited', async () => {
    const { clinic, sub, key } = await paying();
    standIn.deleteSubscription(sub.id);
    const id = `evt_gone_${sub.id}`;
    const copy = stripeSubscriptionObject(sub, standIn.priceId);
    const res = await standIn.deliver('customer.subscription.updated', copy, { id });
    expect(await outcomeOf(res)).toBe('applied');
    expect(await checkStatus(server, key)).toBe(403);
    expect(await billingView(clinic)).toMatchObject({ status: 'inactive', stripe_status: null, can_subscribe: true });
    expect((await auditOf(server, clinic)).at(-1)).toMatchObject({
      source: 'stripe',
      reason: 'stripe_subscription_missing',
      stripe_event_id: id,
      subscription: { status: 'inactive' },
    });
    expect(serverErrors()).toEqual([]);
  });

  it('never logs the secret key or the webhook secret', () => {
    const logs = server.logs.join('\n');
    expect(logs).not.toContain(standIn.secretKey);
    expect(logs).not.toContain(standIn.webhookSecret);
  });
});
