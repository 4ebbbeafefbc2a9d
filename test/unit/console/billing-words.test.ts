import { describe, expect, it } from 'vitest';
import type { BillingData } from '../../../shared/api/billing';
import { endOfSydneyDay } from '../../../server/accounts/sydney-time';
import { dateLine } from '../../../console/src/pages/billing/billing-words';

/** What `set-subscription --expires 2027-06-30` stores: the first instant of 1 July in Sydney. */
const OPERATOR_END = endOfSydneyDay('2027-06-30').toISOString();

function billing(fields: Partial<BillingData>): BillingData {
  return {
    mode: 'operator',
    plan: 'Clinic-Wide Access',
    status: 'active',
    expires_at: null,
    renews_at: null,
    ends_at: null,
    ended_reason: null,
    stripe_status: null,
    can_subscribe: false,
    can_manage_billing: false,
    ...fields,
  } as BillingData;
}

describe("Billing's date line: the last paid day, and 'Ends on' only for a cancellation", () => {
  it("the operator's end date is the last paid day, not the midnight after it", () => {
    expect(dateLine(billing({ expires_at: OPERATOR_END, ends_at: OPERATOR_END }))).toEqual({
      label: 'Paid until',
      day: '30 June 2027',
    });
    // Once it passed: still the day paid until, beside "Access ended: the subscription reached its end date".
    const passed = billing({ status: 'inactive', expires_at: OPERATOR_END, ends_at: OPERATOR_END });
    expect(dateLine({ ...passed, ended_reason: 'expired' })).toEqual({ label: 'Paid until', day: '30 June 2027' });
    // Switched off by the operator: an end date that no longer means anything is not shown.
    expect(dateLine({ ...passed, ended_reason: 'operator' })).toBeNull();
    expect(dateLine(billing({}))).toBeNull();
  });

  it('Stripe: renews on the day of the period end; a cancellation ends on its last day; a failed payment has access until', () => {
    // 23:30 UTC on 30 June is 09:30 on 1 July in Sydney.
    const periodEnd = '2027-06-30T23:30:00.000Z';
    const stripe = { mode: 'stripe' as const, expires_at: periodEnd };
    expect(dateLine(billing({ ...stripe, renews_at: periodEnd, stripe_status: 'active' }))).toEqual({
      label: 'Renews on',
      day: '1 July 2027',
    });
    expect(
      dateLine(billing({ ...stripe, ends_at: periodEnd, ended_reason: 'cancelled', stripe_status: 'active' })),
    ).toEqual({ label: 'Ends on', day: '1 July 2027' });
    expect(
      dateLine(billing({ ...stripe, ends_at: periodEnd, ended_reason: 'payment_failed', stripe_status: 'past_due' })),
    ).toEqual({ label: 'Access until', day: '1 July 2027' });
    expect(dateLine(billing({ ...stripe, status: 'inactive', ends_at: periodEnd, ended_reason: 'cancelled' }))).toEqual(
      { label: 'Ended on', day: '1 July 2027' },
    );
  });
});
