import { describe, expect, it } from 'vitest';
import { NOT_BILLED } from '../../../server/accounts/account-service';
import type { AccountsFile, Subscription } from '../../../server/accounts/account-records';
import { organisationOf, rememberEvent, replaces } from '../../../server/billing/billing-records';
import { billedStateOf } from '../../../server/billing/stripe-subscription';

const NOW = new Date('2026-11-26T00:00:00Z');
const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);

function stripeSub(id: string, status: string, periodEnd = '2026-12-20T00:00:00Z') {
  return {
    id,
    customer: 'cus_1',
    status,
    cancel_at_period_end: false,
    metadata: {},
    items: { data: [{ current_period_start: at('2026-11-20T00:00:00Z'), current_period_end: at(periodEnd) }] },
  } as Parameters<typeof billedStateOf>[0];
}

function stored(fields: Partial<Subscription>): Subscription {
  return {
    id: 'local-1',
    organisation_id: 'org-1',
    plan: 'Clinic-Wide Access',
    status: 'inactive',
    expires_at: null,
    rate_limit: 100,
    updated_at: NOW.toISOString(),
    ...NOT_BILLED,
    ...fields,
  } as Subscription;
}

describe('replaces: which of two reads of Stripe is kept', () => {
  const active = billedStateOf(stripeSub('sub_new', 'active'), 3, NOW);

  it('a read older than the one stored never overwrites it', () => {
    const record = stored({ ...active, stripe_synced_at: '2026-11-26T00:00:10.000Z' });
    expect(replaces(record, active, new Date('2026-11-26T00:00:05Z'), NOW)).toBe(false);
    expect(replaces(record, active, new Date('2026-11-26T00:00:11Z'), NOW)).toBe(true);
  });

  it('of two Stripe subscriptions, the one giving access wins; among equals the later period end', () => {
    const cancelledOld = billedStateOf(stripeSub('sub_old', 'canceled'), 3, NOW);
    const record = stored({ ...active, stripe_synced_at: NOW.toISOString() });
    expect(replaces(record, cancelledOld, NOW, NOW)).toBe(false);
    const recordCancelled = stored({ ...cancelledOld, stripe_synced_at: NOW.toISOString() });
    expect(replaces(recordCancelled, active, NOW, NOW)).toBe(true);
    const longer = billedStateOf(stripeSub('sub_longer', 'active', '2027-02-01T00:00:00Z'), 3, NOW);
    expect(replaces(record, longer, NOW, NOW)).toBe(true);
    expect(replaces(stored({ ...longer }), active, NOW, NOW)).toBe(false);
  });

  it('an operator-set subscription (no Stripe id) is replaced by Stripe', () => {
    expect(replaces(stored({ status: 'active' }), billedStateOf(stripeSub('s', 'canceled'), 3, NOW), NOW, NOW)).toBe(
      true,
    );
  });
});

describe('organisationOf and rememberEvent', () => {
  const data = {
    organisations: [{ id: 'org-1' }, { id: 'org-2' }],
    subscriptions: [stored({ organisation_id: 'org-2', stripe_customer_id: 'cus_2', stripe_subscription_id: 'sub_2' })],
    billing_events: [],
  } as unknown as AccountsFile;

  it('metadata, then the checkout’s organisation, then the stored subscription or customer; else none', () => {
    expect(organisationOf(data, { ...stripeSub('x', 'active'), metadata: { organisation_id: 'org-1' } }, null)).toBe(
      'org-1',
    );
    expect(organisationOf(data, stripeSub('x', 'active'), 'org-1')).toBe('org-1');
    expect(organisationOf(data, stripeSub('sub_2', 'active'), null)).toBe('org-2');
    expect(organisationOf(data, { ...stripeSub('y', 'active'), customer: 'cus_2' }, null)).toBe('org-2');
    expect(organisationOf(data, { ...stripeSub('y', 'active'), metadata: { organisation_id: 'gone' } }, 'gone')).toBe(
      null,
    );
  });

  it('keeps applied event ids 30 days', () => {
    const file = {
      billing_events: [{ id: 'evt_old', type: 't', organisation_id: null, received_at: '2026-10-01T00:00:00Z' }],
    } as unknown as AccountsFile;
    rememberEvent(file, { id: 'evt_new', type: 'invoice.paid' }, 'org-1', NOW);
    expect(file.billing_events.map((e) => e.id)).toEqual(['evt_new']);
  });
});
