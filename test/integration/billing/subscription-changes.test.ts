import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionChanges, type ApplyContext } from '../../../server/billing/subscription-changes';
import type { StripeSubscriptionLike } from '../../../server/billing/stripe-subscription';
import { accountsOnStorage, type AccountsOnStorage } from '../../helpers/service-storage';

/**
 * Billing's writes of the accounts document (billing-records.ts through AccountService.updateBilling), on the
 * backend under test, without HTTP or Stripe: what Stripe said of a subscription, applied once per event.
 */
const DAY = 86_400;
const nowSeconds = () => Math.floor(Date.now() / 1000);

let world: AccountsOnStorage;
let changes: SubscriptionChanges;
beforeAll(async () => {
  world = await accountsOnStorage();
  changes = new SubscriptionChanges({
    accounts: world.accounts,
    audit: world.audit,
    clock: () => new Date(),
    graceDays: 3,
  });
});
afterAll(() => world.close());

let practices = 0;
async function practice() {
  const n = ++practices;
  const owner = await world.accounts.createAccount(`owner${n}@billing.example`, 'correct horse battery');
  return world.accounts.membershipOf(owner.id)!.organisation_id;
}

function stripeSub(organisationId: string | null, status = 'active', periodEnd = nowSeconds() + 30 * DAY) {
  const n = ++practices;
  return {
    id: `sub_${n}`,
    customer: `cus_${n}`,
    status,
    cancel_at_period_end: false,
    metadata: organisationId ? { organisation_id: organisationId } : {},
    items: { data: [{ current_period_start: nowSeconds() - DAY, current_period_end: periodEnd }] },
  } as StripeSubscriptionLike;
}

const context = (fields: Partial<ApplyContext> = {}): ApplyContext => ({
  readAt: new Date(),
  organisationHint: null,
  event: null,
  by: { source: 'stripe' },
  reason: 'active',
  ...fields,
});
const audited = async (organisationId: string) =>
  (await world.audit.read({ organisationId })).filter((e) => e.event === 'subscription_changed');

describe('applying what Stripe says of a subscription', () => {
  it('an active Stripe subscription activates the organisation’s, with its Stripe fields, audited once', async () => {
    const organisationId = await practice();
    const sub = stripeSub(organisationId);
    const applied = await changes.apply(sub, context({ event: { id: 'evt_a1', type: 'invoice.paid' } }));
    expect(applied.outcome).toBe('applied');
    const stored = world.accounts.subscriptionOfOrganisation(organisationId)!;
    expect(stored).toMatchObject({
      status: 'active',
      stripe_subscription_id: sub.id,
      stripe_customer_id: sub.customer,
    });
    expect(world.accounts.current.billing_events.map((e) => e.id)).toContain('evt_a1');
    expect(await audited(organisationId)).toHaveLength(1);
  });

  it('one event delivered twice at once is applied once: the other is a duplicate, nothing audited twice', async () => {
    const organisationId = await practice();
    const sub = stripeSub(organisationId);
    const event = { id: 'evt_twice', type: 'customer.subscription.updated' };
    const outcomes = await Promise.all([
      changes.apply(sub, context({ event })),
      changes.apply(sub, context({ event })),
    ]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['applied', 'duplicate']);
    expect(world.accounts.current.billing_events.filter((e) => e.id === event.id)).toHaveLength(1);
    expect(await audited(organisationId)).toHaveLength(1);
  });

  it('a read of Stripe older than the one stored changes nothing', async () => {
    const organisationId = await practice();
    const sub = stripeSub(organisationId);
    const newer = new Date();
    await changes.apply(sub, context({ readAt: newer }));
    const older = new Date(newer.getTime() - 5_000);
    const stale = await changes.apply({ ...sub, status: 'canceled' }, context({ readAt: older }));
    expect(stale.outcome).toBe('unchanged');
    expect(world.accounts.subscriptionOfOrganisation(organisationId)?.status).toBe('active');
  });

  it('a subscription naming no organisation of this service writes nothing, not even its event', async () => {
    const before = world.accounts.current;
    const event = { id: 'evt_nobody', type: 'customer.subscription.created' };
    const result = await changes.apply(stripeSub(null), context({ event }));
    expect(result.outcome).toBe('unknown_organisation');
    expect(world.accounts.current).toBe(before);
  });

  it('a subscription Stripe no longer knows ends the access of the organisation holding it, and no other', async () => {
    const [holder, bystander] = [await practice(), await practice()];
    const held = stripeSub(holder);
    await changes.apply(held, context());
    await changes.apply(stripeSub(bystander), context());
    const ended = await changes.applyMissing(held.id, context({ reason: 'stripe_subscription_missing' }));
    expect(ended.outcome).toBe('applied');
    expect(world.accounts.subscriptionOfOrganisation(holder)?.status).toBe('inactive');
    expect(world.accounts.subscriptionOfOrganisation(bystander)?.status).toBe('active');
  });
});
