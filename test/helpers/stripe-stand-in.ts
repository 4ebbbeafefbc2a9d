import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A local stand-in for the few Stripe API calls the server makes (Checkout Session create and retrieve, Billing Portal
 * Session create, Subscription retrieve and list) and for the two pages a browser visits (Checkout, Customer Portal),
 * in Stripe's wire shape: form-encoded requests with bracket keys, JSON answers with `object` fields, Stripe's error
 * shape. It also delivers signed webhook events to the server, as Stripe would. Loopback only.
 */
export interface StripeStandIn {
  /** http://127.0.0.1:PORT — the server's STRIPE_API_BASE. */
  url: string;
  secretKey: string;
  priceId: string;
  webhookSecret: string;
  /** Where events are delivered (the server's /api/v1/billing/webhook). */
  setWebhookUrl(url: string): void;
  /** While down, every API call answers 503 (Stripe unreachable); the pages still work. */
  setDown(down: boolean): void;
  subscription(id: string): StandInSubscription | undefined;
  subscriptions(): StandInSubscription[];
  createSubscription(init: SubscriptionInit): StandInSubscription;
  updateSubscription(id: string, patch: Partial<Omit<StandInSubscription, 'id'>>): StandInSubscription;
  /** Forgets a subscription, as deleting a test account's data does: Stripe then answers 404 for its id. */
  deleteSubscription(id: string): void;
  /**
   * Signs (valid, or a 'bad'/'stale'/'missing' signature) and POSTs an event; returns the server's Response. `object`
   * null: an event with `data.object: null`.
   */
  deliver(type: string, object: object | null, options?: DeliverOptions): Promise<Response>;
  /** What the server asked, oldest first (body: the form fields of a POST, the query of a GET). */
  requests: { method: string; path: string; body: Record<string, string> }[];
  close(): Promise<void>;
}

/** A subscription as the stand-in keeps it; times are Unix seconds, as in Stripe's objects. */
export interface StandInSubscription {
  id: string;
  customer: string;
  status: 'active' | 'trialing' | 'past_due' | 'canceled' | 'unpaid' | 'incomplete' | 'incomplete_expired' | 'paused';
  current_period_start: number;
  current_period_end: number;
  cancel_at_period_end: boolean;
  metadata: Record<string, string>;
  created: number;
  canceled_at: number | null;
}

export type SubscriptionInit = Partial<Omit<StandInSubscription, 'id'>>;

export interface DeliverOptions {
  id?: string;
  signature?: 'valid' | 'bad' | 'stale' | 'missing';
  /** Fields of the event over the usual ones; an undefined value leaves the field out (an event with no `created`). */
  event?: Record<string, unknown>;
}

interface CheckoutSession {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  client_reference_id: string | null;
  customer: string | null;
  customer_email: string | null;
  subscription: string | null;
  metadata: Record<string, string>;
  subscription_metadata: Record<string, string>;
  success_url: string;
  cancel_url: string;
  url: string;
  created: number;
}

interface PortalSession {
  id: string;
  object: 'billing_portal.session';
  customer: string;
  return_url: string;
  url: string;
  created: number;
}

const DAY_SECONDS = 86_400;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const randomId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;

/** Stripe's subscription object (API 2026-10-28: the period lives on the subscription item). */
export function stripeSubscriptionObject(sub: StandInSubscription, priceId: string) {
  return {
    id: sub.id,
    object: 'subscription',
    customer: sub.customer,
    status: sub.status,
    cancel_at_period_end: sub.cancel_at_period_end,
    cancel_at: sub.cancel_at_period_end ? sub.current_period_end : null,
    canceled_at: sub.canceled_at,
    ended_at: sub.status === 'canceled' ? (sub.canceled_at ?? nowSeconds()) : null,
    created: sub.created,
    start_date: sub.created,
    livemode: false,
    metadata: sub.metadata,
    items: {
      object: 'list',
      has_more: false,
      url: `/v1/subscription_items?subscription=${sub.id}`,
      data: [
        {
          id: `si_${sub.id.slice(4)}`,
          object: 'subscription_item',
          subscription: sub.id,
          quantity: 1,
          current_period_start: sub.current_period_start,
          current_period_end: sub.current_period_end,
          price: { id: priceId, object: 'price', recurring: { interval: 'month', interval_count: 1 } },
        },
      ],
    },
  };
}

/** An invoice naming a subscription where API 2026-10-28 puts it (for invoice.* events). */
export function stripeInvoiceObject(subscriptionId: string, customer: string, status = 'paid') {
  return {
    id: randomId('in_'),
    object: 'invoice',
    customer,
    status,
    parent: { type: 'subscription_details', subscription_details: { subscription: subscriptionId, metadata: {} } },
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

function stripeError(res: http.ServerResponse, status: number, type: string, message: string, code?: string) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { type, message, ...(code && { code }) } }));
}

function json(res: http.ServerResponse, body: unknown) {
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': randomId('req_') });
  res.end(JSON.stringify(body));
}

function redirect(res: http.ServerResponse, location: string) {
  res.writeHead(303, { location });
  res.end();
}

/** Form fields whose keys start with `prefix[` (e.g. metadata[organisation_id]) as a plain object. */
function bracketed(body: Record<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith(`${prefix}[`) && key.endsWith(']')) {
      const name = key.slice(prefix.length + 1, -1);
      if (!name.includes('[')) out[name] = value;
    }
  }
  return out;
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startStripeStandIn(
  options: Partial<Pick<StripeStandIn, 'secretKey' | 'priceId' | 'webhookSecret'>> = {},
): Promise<StripeStandIn> {
  const secretKey = options.secretKey ?? `sk_test_${randomBytes(12).toString('hex')}`;
  const priceId = options.priceId ?? 'price_standinclinicwide';
  const webhookSecret = options.webhookSecret ?? `whsec_${randomBytes(16).toString('hex')}`;
  const subscriptions = new Map<string, StandInSubscription>();
  const checkouts = new Map<string, CheckoutSession>();
  const portals = new Map<string, PortalSession>();
  const requests: StripeStandIn['requests'] = [];
  let webhookUrl: string | null = null;
  let down = false;
  let url = '';

  const createSubscription = (init: SubscriptionInit): StandInSubscription => {
    const start = init.current_period_start ?? nowSeconds();
    const sub: StandInSubscription = {
      id: randomId('sub_'),
      customer: init.customer ?? randomId('cus_'),
      status: init.status ?? 'active',
      current_period_start: start,
      current_period_end: init.current_period_end ?? start + 30 * DAY_SECONDS,
      cancel_at_period_end: init.cancel_at_period_end ?? false,
      metadata: init.metadata ?? {},
      created: init.created ?? nowSeconds(),
      canceled_at: init.canceled_at ?? null,
    };
    subscriptions.set(sub.id, sub);
    return sub;
  };

  const updateSubscription = (id: string, patch: Partial<Omit<StandInSubscription, 'id'>>) => {
    const sub = subscriptions.get(id);
    if (!sub) throw new Error(`stand-in: no subscription ${id}`);
    Object.assign(sub, patch);
    // Stripe stamps a cancellation once; a test that only says "canceled" gets the stamp too.
    if (sub.status === 'canceled' && sub.canceled_at === null) sub.canceled_at = nowSeconds();
    return sub;
  };

  const deliver = async (type: string, object: object | null, deliverOptions: DeliverOptions = {}) => {
    if (!webhookUrl) throw new Error('stand-in: setWebhookUrl first');
    const event = {
      id: deliverOptions.id ?? randomId('evt_'),
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: nowSeconds(),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object },
      ...deliverOptions.event,
    };
    const payload = JSON.stringify(event, null, 2);
    const signature = deliverOptions.signature ?? 'valid';
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    };
    if (signature !== 'missing') {
      headers['stripe-signature'] = Stripe.webhooks.generateTestHeaderString({
        payload,
        secret: signature === 'bad' ? `whsec_${randomBytes(16).toString('hex')}` : webhookSecret,
        ...(signature === 'stale' && { timestamp: nowSeconds() - 3600 }),
      });
    }
    return fetch(webhookUrl, { method: 'POST', headers, body: payload });
  };

  /** Stripe does not wait for the merchant's answer to move on; neither does a page here fail when delivery does. */
  const deliverQuietly = async (type: string, object: object) => {
    try {
      await deliver(type, object);
    } catch {
      // The server's billing-sync or the console's completion call repairs a lost event.
    }
  };

  const api = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    path: string,
    body: Record<string, string>,
  ) => {
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      return stripeError(res, 401, 'invalid_request_error', 'Invalid API Key provided');
    }
    if (down) return stripeError(res, 503, 'api_error', 'The stand-in is down');
    const method = req.method ?? 'GET';
    let match: RegExpMatchArray | null;
    if (method === 'POST' && path === '/v1/checkout/sessions') return createCheckout(res, body);
    if (method === 'GET' && (match = path.match(/^\/v1\/checkout\/sessions\/([^/]+)$/))) {
      const session = checkouts.get(decodeURIComponent(match[1]!));
      if (!session) return missing(res, 'checkout.session', match[1]!);
      const { subscription_metadata: _, ...visible } = session;
      return json(res, visible);
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') return createPortal(res, body);
    if (method === 'GET' && (match = path.match(/^\/v1\/subscriptions\/([^/]+)$/))) {
      const sub = subscriptions.get(decodeURIComponent(match[1]!));
      if (!sub) return missing(res, 'subscription', match[1]!);
      return json(res, stripeSubscriptionObject(sub, priceId));
    }
    if (method === 'GET' && path === '/v1/subscriptions') return listSubscriptions(res, body);
    return stripeError(res, 404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path})`);
  };

  const missing = (res: http.ServerResponse, kind: string, id: string) =>
    stripeError(res, 404, 'invalid_request_error', `No such ${kind}: '${id}'`, 'resource_missing');

  const createCheckout = (res: http.ServerResponse, body: Record<string, string>) => {
    if (body['mode'] !== 'subscription') {
      return stripeError(res, 400, 'invalid_request_error', 'mode must be subscription');
    }
    if (body['line_items[0][price]'] !== priceId) {
      return stripeError(res, 400, 'invalid_request_error', `No such price: '${body['line_items[0][price]']}'`);
    }
    if (!body['success_url'] || !body['cancel_url']) {
      return stripeError(res, 400, 'invalid_request_error', 'success_url and cancel_url are required');
    }
    const id = randomId('cs_test_');
    const session: CheckoutSession = {
      id,
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      payment_status: 'unpaid',
      client_reference_id: body['client_reference_id'] ?? null,
      customer: body['customer'] ?? null,
      customer_email: body['customer_email'] ?? null,
      subscription: null,
      metadata: bracketed(body, 'metadata'),
      subscription_metadata: bracketed(body, 'subscription_data[metadata]'),
      success_url: body['success_url'],
      cancel_url: body['cancel_url'],
      url: `${url}/checkout/${id}`,
      created: nowSeconds(),
    };
    checkouts.set(id, session);
    const { subscription_metadata: _, ...visible } = session;
    return json(res, visible);
  };

  const createPortal = (res: http.ServerResponse, body: Record<string, string>) => {
    const customer = body['customer'];
    if (!customer?.startsWith('cus_')) return missing(res, 'customer', customer ?? '');
    const id = randomId('bps_');
    const session: PortalSession = {
      id,
      object: 'billing_portal.session',
      customer,
      return_url: body['return_url'] ?? url,
      url: `${url}/portal/${id}`,
      created: nowSeconds(),
    };
    portals.set(id, session);
    return json(res, session);
  };

  const listSubscriptions = (res: http.ServerResponse, query: Record<string, string>) => {
    const status = query['status'];
    const limit = Math.min(Math.max(Number(query['limit'] ?? 10) || 10, 1), 100);
    // Stripe lists newest first; without a status it leaves cancelled ones out.
    let all = [...subscriptions.values()].reverse().filter((s) => {
      if (status === 'all') return true;
      if (status) return s.status === status;
      return s.status !== 'canceled';
    });
    if (query['customer']) all = all.filter((s) => s.customer === query['customer']);
    const after = query['starting_after'];
    const start = after ? all.findIndex((s) => s.id === after) + 1 : 0;
    const data = all.slice(start, start + limit);
    return json(res, {
      object: 'list',
      url: '/v1/subscriptions',
      has_more: start + limit < all.length,
      data: data.map((s) => stripeSubscriptionObject(s, priceId)),
    });
  };

  const checkoutPage = (res: http.ServerResponse, session: CheckoutSession) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    const paid = session.status === 'complete';
    res.end(
      page(
        'Stripe stand-in: Checkout',
        `<p>Clinic-Wide Access, monthly (${escapeHtml(priceId)}).</p>` +
          `<p>Customer: ${escapeHtml(session.customer_email ?? session.customer ?? 'new customer')}</p>` +
          (paid
            ? '<p>This checkout is already paid.</p>'
            : `<form method="post" action="/checkout/${session.id}/pay"><button type="submit">Pay</button></form>`) +
          `<p><a href="${escapeHtml(session.cancel_url)}">Cancel</a></p>`,
      ),
    );
  };

  const pay = async (res: http.ServerResponse, session: CheckoutSession) => {
    if (session.status !== 'complete') {
      const sub = createSubscription({
        customer: session.customer ?? randomId('cus_'),
        metadata: session.subscription_metadata,
      });
      Object.assign(session, {
        status: 'complete',
        payment_status: 'paid',
        subscription: sub.id,
        customer: sub.customer,
      });
      const { subscription_metadata: _, ...visible } = session;
      await deliverQuietly('checkout.session.completed', visible);
      await deliverQuietly('customer.subscription.created', stripeSubscriptionObject(sub, priceId));
    }
    redirect(res, session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id));
  };

  const portalPage = (res: http.ServerResponse, session: PortalSession) => {
    const running = [...subscriptions.values()].filter(
      (s) => s.customer === session.customer && s.status !== 'canceled',
    );
    const list = running
      .map(
        (s) =>
          `<li>${escapeHtml(s.id)}: ${escapeHtml(s.status)}, paid until ${new Date(s.current_period_end * 1000).toISOString()}</li>`,
      )
      .join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      page(
        'Stripe stand-in: Customer Portal',
        (running.length > 0 ? `<ul>${list}</ul>` : '<p>No running subscription.</p>') +
          (running.length > 0
            ? `<form method="post" action="/portal/${session.id}/cancel"><button type="submit">Cancel subscription</button></form>`
            : '') +
          `<p><a href="${escapeHtml(session.return_url)}">Return</a></p>`,
      ),
    );
  };

  const cancelInPortal = async (res: http.ServerResponse, session: PortalSession) => {
    for (const sub of subscriptions.values()) {
      if (sub.customer !== session.customer || sub.status === 'canceled') continue;
      Object.assign(sub, { status: 'canceled', canceled_at: nowSeconds(), cancel_at_period_end: false });
      await deliverQuietly('customer.subscription.deleted', stripeSubscriptionObject(sub, priceId));
    }
    redirect(res, session.return_url);
  };

  const pages = async (req: http.IncomingMessage, res: http.ServerResponse, path: string) => {
    let match: RegExpMatchArray | null;
    if ((match = path.match(/^\/checkout\/([^/]+)(\/pay)?$/))) {
      const session = checkouts.get(match[1]!);
      if (!session) return notFoundPage(res);
      if (match[2] && req.method === 'POST') return pay(res, session);
      return checkoutPage(res, session);
    }
    if ((match = path.match(/^\/portal\/([^/]+)(\/cancel)?$/))) {
      const session = portals.get(match[1]!);
      if (!session) return notFoundPage(res);
      if (match[2] && req.method === 'POST') return cancelInPortal(res, session);
      return portalPage(res, session);
    }
    return notFoundPage(res);
  };

  const notFoundPage = (res: http.ServerResponse) => {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page('Stripe stand-in: not found', '<p>No such page.</p>'));
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const target = new URL(req.url ?? '/', 'http://stand-in');
      const raw = await readBody(req);
      if (target.pathname.startsWith('/v1/')) {
        const fields = req.method === 'GET' ? target.searchParams : new URLSearchParams(raw);
        const body = Object.fromEntries(fields);
        requests.push({ method: req.method ?? 'GET', path: target.pathname, body });
        return api(req, res, target.pathname, body);
      }
      return pages(req, res, target.pathname);
    })().catch(() => {
      if (!res.headersSent) stripeError(res, 500, 'api_error', 'stand-in failure');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    secretKey,
    priceId,
    webhookSecret,
    setWebhookUrl: (value) => {
      webhookUrl = value;
    },
    setDown: (value) => {
      down = value;
    },
    subscription: (id) => subscriptions.get(id),
    subscriptions: () => [...subscriptions.values()],
    createSubscription,
    updateSubscription,
    deleteSubscription: (id) => {
      subscriptions.delete(id);
    },
    deliver,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
