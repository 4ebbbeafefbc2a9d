import type { Subscription } from '../accounts/account-records';
import type { AuditActor } from '../audit/audit-log';
import type { StripeSubscriptionLike } from './stripe-subscription';
import type { ApplyContext, BillingJobDeps } from './subscription-changes';

/** The admin CLI's `billing-sync`: every subscription read again from Stripe and applied (after a missed webhook). */
export class BillingSync {
  constructor(private readonly deps: BillingJobDeps) {}

  /**
   * Re-reads every Stripe subscription (a missed webhook) and applies each that names an organisation, then the
   * stored subscription ids the list did not have. Answers one line per organisation changed, and a total.
   */
  async sync(by: AuditActor): Promise<string[]> {
    const { stripe } = this.deps.stripe.configured();
    const readAt = this.deps.clock();
    const seen = new Set<string>();
    const lines: string[] = [];
    const context: ApplyContext = { readAt, organisationHint: null, event: null, by, reason: 'billing_sync' };
    const applyOne = async (sub: StripeSubscriptionLike) => {
      seen.add(sub.id);
      const result = await this.deps.changes.apply(sub, context);
      if (result.outcome === 'applied' && result.subscription) lines.push(this.describe(result.subscription));
    };
    try {
      for await (const sub of stripe.subscriptions.list({ status: 'all', limit: 100 })) await applyOne(sub);
    } catch (err) {
      throw this.deps.stripe.unavailable(err, 'could not list Stripe subscriptions');
    }
    const stored = this.deps.accounts.current.subscriptions.flatMap((s) => s.stripe_subscription_id ?? []);
    for (const id of new Set(stored)) {
      if (seen.has(id)) continue;
      const sub = await this.deps.stripe.retrieveKnown(id, () =>
        this.deps.logger.warn({ stripe_subscription_id: id }, 'Stripe no longer knows a stored subscription'),
      );
      if (sub) await applyOne(sub);
    }
    lines.push(`${lines.length} organisation(s) changed; ${seen.size} Stripe subscription(s) read`);
    return lines;
  }

  private describe(sub: Subscription): string {
    const name = this.deps.accounts.organisation(sub.organisation_id)?.name ?? sub.organisation_id;
    const until = sub.status === 'active' && sub.expires_at ? ` until ${sub.expires_at}` : '';
    return `${name} (${sub.organisation_id}): ${sub.status}${until} (Stripe: ${sub.stripe_status ?? 'none'})`;
  }
}
