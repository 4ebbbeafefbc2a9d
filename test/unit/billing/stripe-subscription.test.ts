import { describe, expect, it } from 'vitest';
import { isSubscriptionActive } from '../../../server/accounts/account-service';
import { billedStateOf, isRunningStripeStatus } from '../../../server/billing/stripe-subscription';

const NOW = new Date('2026-11-26T00:00:00Z');
const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** A subscription as API 2026-10-28 shapes it: the period on its item. */
function sub(status: string, fields: Record<string, unknown> = {}) {
  return {
    id: 'sub_1',
    customer: 'cus_1',
    status,
    cancel_at_period_end: false,
    metadata: { organisation_id: 'org-1' },
    items: {
      data: [
        {
          current_period_start: at('2026-11-20T00:00:00Z'),
          current_period_end: at('2026-12-20T00:00:00Z'),
        },
      ],
    },
    ...fields,
  } as Parameters<typeof billedStateOf>[0];
}

describe('billedStateOf: what Stripe status means for access', () => {
  it('active and trialing run until the period end, renewing', () => {
    for (const status of ['active', 'trialing']) {
      expect(billedStateOf(sub(status), 3, NOW)).toEqual({
        status: 'active',
        expires_at: '2026-12-20T00:00:00.000Z',
        ended_reason: null,
        stripe_customer_id: 'cus_1',
        stripe_subscription_id: 'sub_1',
        stripe_status: status,
        current_period_end: '2026-12-20T00:00:00.000Z',
        cancel_at_period_end: false,
      });
    }
  });

  it('cancelled at period end: active until then, ending as cancelled', () => {
    const state = billedStateOf(sub('active', { cancel_at_period_end: true }), 3, NOW);
    expect(state).toMatchObject({
      status: 'active',
      expires_at: '2026-12-20T00:00:00.000Z',
      ended_reason: 'cancelled',
    });
    expect(state.cancel_at_period_end).toBe(true);
  });

  it('reads the older top-level period fields when the items have none', () => {
    const older = sub('active', {
      items: { data: [{}] },
      current_period_end: at('2027-01-01T00:00:00Z'),
    });
    expect(billedStateOf(older, 3, NOW).expires_at).toBe('2027-01-01T00:00:00.000Z');
  });

  it('active or trialing without any period gives no access, never access with no end date', () => {
    for (const status of ['active', 'trialing']) {
      const state = billedStateOf(sub(status, { items: { data: [] } }), 3, NOW);
      expect(state).toMatchObject({ status: 'inactive', expires_at: null, stripe_status: status });
      expect(isSubscriptionActive(state, NOW)).toBe(false);
    }
  });

  it('past_due keeps the grace days after the renewal that failed (period already moved on)', () => {
    expect(billedStateOf(sub('past_due'), 3, NOW)).toMatchObject({
      status: 'active',
      expires_at: '2026-11-23T00:00:00.000Z',
      ended_reason: 'payment_failed',
    });
  });

  it('past_due with the period not moved on: grace after its end', () => {
    const later = new Date('2026-12-21T00:00:00Z');
    expect(billedStateOf(sub('past_due'), 5, later).expires_at).toBe('2026-12-25T00:00:00.000Z');
  });

  it('the ending statuses end access with their reason', () => {
    const cases: [string, string][] = [
      ['canceled', 'cancelled'],
      ['unpaid', 'unpaid'],
      ['incomplete', 'incomplete'],
      ['incomplete_expired', 'incomplete'],
      ['paused', 'paused'],
    ];
    for (const [status, reason] of cases) {
      const state = billedStateOf(sub(status, { ended_at: at('2026-11-25T00:00:00Z') }), 3, NOW);
      expect(state.status, status).toBe('inactive');
      expect(state.ended_reason, status).toBe(reason);
      expect(isSubscriptionActive(state, NOW)).toBe(false);
    }
  });

  it('a customer object is read by its id', () => {
    expect(billedStateOf(sub('active', { customer: { id: 'cus_x' } }), 3, NOW).stripe_customer_id).toBe('cus_x');
  });

  it('running statuses are those Stripe still bills', () => {
    expect(['active', 'trialing', 'past_due', 'unpaid', 'paused'].every(isRunningStripeStatus)).toBe(true);
    expect(['canceled', 'incomplete', 'incomplete_expired'].some(isRunningStripeStatus)).toBe(false);
    expect(isRunningStripeStatus(null)).toBe(false);
  });
});
