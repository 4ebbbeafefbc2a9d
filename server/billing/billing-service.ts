import type { BillingData } from '../../shared/api/billing';
import type { Role } from '../../shared/api/team';
import type { AccountService } from '../accounts/account-service';
import type { AuditActor, AuditRecorder } from '../audit/audit-log';
import type { StripeSettings } from '../config';
import type { Logger } from '../logger';
import { BillingCheckout } from './billing-checkout';
import type { WebhookOutcome } from './billing-records';
import { BillingSync } from './billing-sync';
import { RenewalRefresh } from './renewal-refresh';
import { StripeCalls } from './stripe-calls';
import type { StripeConnection } from './stripe-client';
import { SubscriptionChanges } from './subscription-changes';
import { WebhookIntake } from './webhook-intake';

/** The billing service of `settings`: in operator mode (null) without ever loading the `stripe` package. */
export async function openBillingService(deps: Omit<BillingServiceDeps, 'stripe'>): Promise<BillingService> {
  const stripe = deps.settings ? (await import('./stripe-client')).connectStripe(deps.settings) : null;
  return new BillingService({ ...deps, stripe });
}

export interface BillingServiceDeps {
  /** stripeSettings(config): null = operator mode. */
  settings: StripeSettings | null;
  /** The Stripe client for `settings` (openBillingService connects it); null in operator mode. */
  stripe: StripeConnection | null;
  /** The accounts document's owner: billing's records are written through its updateBilling. */
  accounts: AccountService;
  audit: AuditRecorder;
  clock: () => Date;
  logger: Pick<Logger, 'warn' | 'error' | 'info'>;
}

/**
 * Billing with Stripe: Checkout and the Customer Portal for owners (billing-checkout.ts); Stripe's webhook
 * (webhook-intake.ts), the console's return from Checkout and `billing-sync` (billing-sync.ts) all apply Stripe's
 * subscription as Stripe says it is now, read back from Stripe (subscription-changes.ts), so the order in which events
 * arrive never matters; the renewal refresh (renewal-refresh.ts) reads back the subscriptions about to end. In
 * operator mode (no STRIPE_*) only the view works. One object over those parts, for the routes, the CLI and the
 * background work.
 */
export class BillingService {
  private readonly stripe: StripeCalls;
  private readonly checkoutPart: BillingCheckout;
  private readonly webhook: WebhookIntake;
  private readonly syncPart: BillingSync;
  private readonly refresh: RenewalRefresh;

  constructor(deps: BillingServiceDeps) {
    const { accounts, clock, logger } = deps;
    this.stripe = new StripeCalls(deps.settings, deps.stripe, logger);
    const changes = new SubscriptionChanges({
      accounts,
      audit: deps.audit,
      clock,
      graceDays: deps.settings?.graceDays ?? 0,
    });
    const parts = { stripe: this.stripe, accounts, changes, clock, logger };
    this.checkoutPart = new BillingCheckout(parts);
    this.webhook = new WebhookIntake(parts);
    this.syncPart = new BillingSync(parts);
    this.refresh = new RenewalRefresh(parts);
  }

  get mode(): 'stripe' | 'operator' {
    return this.stripe.settings ? 'stripe' : 'operator';
  }

  view(organisationId: string, role: Role): BillingData {
    return this.checkoutPart.view(organisationId, role);
  }

  checkout(organisationId: string, ownerEmail: string, origin: string): Promise<string> {
    return this.checkoutPart.checkout(organisationId, ownerEmail, origin);
  }

  completeCheckout(
    organisationId: string,
    sessionId: string,
    who: { account_id: string; email: string; by: AuditActor },
  ): Promise<void> {
    return this.checkoutPart.completeCheckout(organisationId, sessionId, who);
  }

  portal(organisationId: string, origin: string): Promise<string> {
    return this.checkoutPart.portal(organisationId, origin);
  }

  receiveWebhook(raw: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
    return this.webhook.receive(raw, signature);
  }

  sync(by: AuditActor): Promise<string[]> {
    return this.syncPart.sync(by);
  }

  refreshEnding(): Promise<number> {
    return this.refresh.refreshEnding();
  }

  /** Starts the renewal refresh (the background work's 'billing' job). */
  startRefresh(): void {
    this.refresh.start();
  }

  /** Stops the refresh and waits for a run under way. */
  stopRefresh(): Promise<void> {
    return this.refresh.stop();
  }
}
