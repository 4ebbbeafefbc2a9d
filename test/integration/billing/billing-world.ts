import { expect } from 'vitest';
import type { Config } from '../../../server/config';
import type { Subscription } from '../../../server/accounts/account-records';
import { startStripeStandIn, type StripeStandIn } from '../../helpers/stripe-stand-in';
import { checkPostcode, startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';

export const PASSWORD = 'correct horse battery staple';

/** The server's configuration for billing against `standIn`. */
export const stripeConfig = (standIn: StripeStandIn): Partial<Config> => ({
  STRIPE_SECRET_KEY: standIn.secretKey,
  STRIPE_PRICE_ID: standIn.priceId,
  STRIPE_WEBHOOK_SECRET: standIn.webhookSecret,
  STRIPE_API_BASE: standIn.url,
});

/** The same, as environment variables (the admin CLI). */
export const stripeEnv = (standIn: StripeStandIn): Record<string, string> => ({
  STRIPE_SECRET_KEY: standIn.secretKey,
  STRIPE_PRICE_ID: standIn.priceId,
  STRIPE_WEBHOOK_SECRET: standIn.webhookSecret,
  STRIPE_API_BASE: standIn.url,
});

/** A server in Stripe mode and the stand-in, Stripe's events going to the server's webhook. */
export async function startBillingWorld(): Promise<{ standIn: StripeStandIn; server: TestServer }> {
  const standIn = await startStripeStandIn();
  const server = await startTestServer({ config: stripeConfig(standIn) });
  standIn.setWebhookUrl(`${server.url}/api/v1/billing/webhook`);
  return { standIn, server };
}

let seq = 0;

/** A new organisation (inactive subscription), its owner signed in. */
export async function newClinic(server: TestServer) {
  const email = `billing${++seq}-${process.pid}@example.test`;
  const account = await server.runtime.accounts.createAccount(email, PASSWORD);
  const organisationId = server.runtime.accounts.membershipOf(account.id)!.organisation_id;
  const owner = new SessionClient(server.url);
  expect((await owner.login(email, PASSWORD)).status).toBe(200);
  return { email, accountId: account.id, organisationId, owner };
}

export type Clinic = Awaited<ReturnType<typeof newClinic>>;

export const subscriptionOf = (server: TestServer, clinic: Clinic): Subscription =>
  server.runtime.accounts.subscriptionOfOrganisation(clinic.organisationId)!;

export async function billingView(clinic: Clinic) {
  const res = await clinic.owner.get('/api/v1/billing');
  expect(res.status).toBe(200);
  return (await json(res)).data;
}

/** Subscribe as a person would: the console's Subscribe, then Pay on the stand-in's Checkout page. */
export async function subscribe(standIn: StripeStandIn, clinic: Clinic) {
  const res = await clinic.owner.post('/api/v1/billing/checkout');
  expect(res.status).toBe(200);
  const { url } = (await json(res)).data as { url: string };
  expect(url.startsWith(`${standIn.url}/checkout/cs_`)).toBe(true);
  const page = await fetch(url);
  expect(await page.text()).toContain('<button type="submit">Pay</button>');
  const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
  expect(paid.status).toBe(303);
  const sessionId = url.split('/').at(-1)!;
  const sub = standIn
    .subscriptions()
    .filter((s) => s.metadata['organisation_id'] === clinic.organisationId)
    .at(-1);
  expect(sub).toBeDefined();
  return { sessionId, successUrl: paid.headers.get('location')!, sub: sub! };
}

/** A real API key of the clinic, generated with the owner's session. */
export async function generateKey(clinic: Clinic): Promise<string> {
  const res = await clinic.owner.post('/api/v1/keys/generate');
  expect(res.status).toBe(201);
  return (await json(res)).data.api_key as string;
}

export async function checkStatus(server: Pick<TestServer, 'url'>, apiKey: string): Promise<number> {
  const res = await checkPostcode(server, apiKey, { postcode: '2480' });
  await res.arrayBuffer();
  return res.status;
}

export async function auditOf(server: TestServer, clinic: Clinic) {
  return (await server.runtime.audit.read({ organisationId: clinic.organisationId })).filter(
    (e) => e.event === 'subscription_changed',
  );
}

export const DAY = 86_400;
export const nowSeconds = () => Math.floor(Date.now() / 1000);
