import type { AccountService } from '../accounts/account-service';
import type { AuditRecorder } from '../audit/audit-log';
import { stripeSettings, type Config } from '../config';
import type { OpenedFeature } from '../lifecycle';
import type { Logger } from '../logger';
import { openBillingService, type BillingService } from './billing-service';

export interface BillingDeps {
  config: Config;
  accounts: AccountService;
  audit: AuditRecorder;
  clock: () => Date;
  logger: Logger;
}

/**
 * Billing with Stripe when STRIPE_* are set (operator mode's view only otherwise), for the server and the admin
 * CLI's billing-sync alike. Its job re-reads the subscriptions about to end (nothing to do in operator mode): a
 * renewal whose webhook never came is read back from Stripe before (or soon after) access would end.
 */
export async function openBilling({ config, ...deps }: BillingDeps): Promise<OpenedFeature<BillingService>> {
  const billing = await openBillingService({ ...deps, settings: stripeSettings(config) });
  return {
    service: billing,
    jobs: [{ name: 'billing', start: () => billing.startRefresh(), stop: () => billing.stopRefresh() }],
    closers: [],
  };
}
