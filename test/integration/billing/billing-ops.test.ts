import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin, runAdminWith } from '../../helpers/run-cli';
import { backendEnv } from '../../helpers/shared-backends';
import type { StripeStandIn } from '../../helpers/stripe-stand-in';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import {
  auditOf,
  billingView,
  checkStatus,
  DAY,
  generateKey,
  newClinic,
  nowSeconds,
  startBillingWorld,
  stripeConfig,
  stripeEnv,
  subscribe,
} from './billing-world';

describe('billing with Stripe: billing-sync and several instances', () => {
  let standIn: StripeStandIn;
  let server: TestServer;
  let other: TestServer | undefined;

  beforeAll(async () => {
    ({ standIn, server } = await startBillingWorld());
  });
  afterAll(async () => {
    await other?.close();
    await server?.close();
    await standIn?.close();
  });

  const adminWithStripe = async (args: string[]) =>
    runAdminWith({ DATA_DIR: server.dataDir, ...(await backendEnv(server.dataDir)), ...stripeEnv(standIn) }, args, {
      timeoutMs: 30_000,
    });

  it('billing-sync repairs a missed event: the cancellation applies, on the running server too', async () => {
    const clinic = await newClinic(server);
    const { sub } = await subscribe(standIn, clinic);
    const key = await generateKey(clinic);
    expect(await checkStatus(server, key)).toBe(200);
    // Stripe cancelled it; the webhook never came.
    standIn.updateSubscription(sub.id, { status: 'canceled' });
    const result = await adminWithStripe(['billing-sync']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.filter((l) => l.includes(clinic.organisationId))).toHaveLength(1);
    expect(lines.find((l) => l.includes(clinic.organisationId))).toContain('inactive (Stripe: canceled)');
    expect(lines.at(-1)).toMatch(/^1 organisation\(s\) changed; \d+ Stripe subscription\(s\) read$/);
    await waitFor(async () => (await checkStatus(server, key)) === 403, { what: 'the server to see the sync' });
    expect(await billingView(clinic)).toMatchObject({ status: 'inactive', ended_reason: 'cancelled' });
    expect((await auditOf(server, clinic)).at(-1)).toMatchObject({ source: 'admin', reason: 'billing_sync' });
    // Nothing left to repair.
    const again = await adminWithStripe(['billing-sync']);
    expect(again.stdout.trim().split('\n').at(-1)).toMatch(/^0 organisation\(s\) changed/);
    // The operator reads the organisation's billing history: Stripe's change with its event id, then the repair.
    const trail = await adminWithStripe(['audit', '--organisation-of', clinic.email]);
    expect(trail.code).toBe(0);
    expect(trail.stdout).toMatch(
      /subscription_changed\s+stripe\s+-\s+active; active, paid until \d{1,2} \w+ \d{4}, 100\/min; Stripe evt_\w+/,
    );
    expect(trail.stdout).toMatch(
      /subscription_changed\s+admin\s+-\s+billing_sync; inactive, paid until \d{1,2} \w+ \d{4}, 100\/min$/m,
    );
    expect(trail.stdout).not.toContain('no such account');
  });

  it('billing-sync with Stripe down: exit 1 with a clear line', async () => {
    standIn.setDown(true);
    try {
      const result = await adminWithStripe(['billing-sync']);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n').slice(-2)).toEqual([
        'Error: The payment service could not be reached; nothing was changed',
        'billing-sync stopped there: what it had read before is applied; run it again.',
      ]);
      expect(result.stderr).not.toContain(standIn.secretKey);
    } finally {
      standIn.setDown(false);
    }
  });

  it('billing-sync in operator mode: exit 1 saying billing is not set up', async () => {
    const result = await runAdmin(server.dataDir, ['billing-sync']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: Billing is not set up on this server\nThis server is in operator mode');
    expect(result.stdout).toBe('');
  });

  it('a renewal whose webhook never came is read back before access ends (the background refresh)', async () => {
    const clinic = await newClinic(server);
    const { sub } = await subscribe(standIn, clinic);
    standIn.updateSubscription(sub.id, { current_period_end: nowSeconds() + 30 * 60 });
    await standIn.deliver('customer.subscription.updated', { id: sub.id, object: 'subscription' });
    // Last read 20 minutes ago; then Stripe renewed it and the webhook was lost.
    const store = await server.runtime.storage.accounts();
    await store.update((data) => {
      const record = data.subscriptions.find((s) => s.organisation_id === clinic.organisationId)!;
      record.stripe_synced_at = new Date(Date.now() - 20 * 60_000).toISOString();
    });
    const renewedUntil = nowSeconds() + 30 * DAY;
    standIn.updateSubscription(sub.id, { current_period_start: nowSeconds(), current_period_end: renewedUntil });
    expect(await server.runtime.billing.refreshEnding()).toBe(1);
    expect(await billingView(clinic)).toMatchObject({
      status: 'active',
      renews_at: new Date(renewedUntil * 1000).toISOString(),
    });
    expect((await auditOf(server, clinic)).at(-1)).toMatchObject({ source: 'stripe', reason: 'billing_refresh' });
    // Read just now, and no longer ending: nothing to do.
    expect(await server.runtime.billing.refreshEnding()).toBe(0);
  });

  it('two instances: a cancellation received by one is refused by the other within 2 s', async () => {
    other = await startTestServer({ dataDir: server.dataDir, config: stripeConfig(standIn) });
    const clinic = await newClinic(server);
    const { sub } = await subscribe(standIn, clinic);
    const key = await generateKey(clinic);
    await waitFor(async () => (await checkStatus(other!, key)) === 200, { what: 'the other instance to see the key' });
    standIn.updateSubscription(sub.id, { status: 'canceled' });
    const res = await standIn.deliver('customer.subscription.deleted', { id: sub.id, object: 'subscription' });
    expect(res.status).toBe(200);
    const { elapsedMs } = await waitFor(async () => (await checkStatus(other!, key)) === 403, {
      timeoutMs: 2_000,
      what: 'the other instance to refuse the key',
    });
    expect(elapsedMs).toBeLessThanOrEqual(2_100);
  });
});
