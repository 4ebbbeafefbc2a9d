import type Stripe from 'stripe';
import type { StripeSettings } from '../config';
import { ContractError } from '../contract-error';
import type { Logger } from '../logger';
import type { StripeConnection } from './stripe-client';
import type { StripeSubscriptionLike } from './stripe-subscription';

/** How long a client waits before asking again after billing_unavailable: Stripe's blips pass in seconds. */
const BILLING_RETRY_AFTER_SECONDS = 30;

/** A subscription id Stripe does not know (404). */
export class MissingSubscription extends Error {
  constructor(readonly id: string) {
    super(`Stripe has no subscription ${id}`);
  }
}

/**
 * Stripe as every billing job calls it: configured or refused (billing_not_configured), a subscription read back
 * (MissingSubscription for one Stripe does not know), and any other failure billing_unavailable, logged without its
 * message (which can quote parameters). In operator mode (`settings` null) there is no connection.
 */
export class StripeCalls {
  readonly connection: StripeConnection | null;

  constructor(
    readonly settings: StripeSettings | null,
    connection: StripeConnection | null,
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
  ) {
    this.connection = settings ? connection : null;
  }

  configured(): { stripe: Stripe; connection: StripeConnection; settings: StripeSettings } {
    if (!this.connection || !this.settings) throw new ContractError('billing_not_configured');
    return { stripe: this.connection.api, connection: this.connection, settings: this.settings };
  }

  /** Stripe's subscription as it is now; an unknown id is MissingSubscription, any other failure unavailable. */
  async retrieve(id: string): Promise<StripeSubscriptionLike> {
    try {
      return await this.configured().stripe.subscriptions.retrieve(id);
    } catch (err) {
      if (this.connection?.isMissing(err)) throw new MissingSubscription(id);
      throw this.unavailable(err, 'could not read a Stripe subscription');
    }
  }

  /** Stripe's subscription `id`, or null when Stripe does not know it (after `whenMissing`). */
  retrieveKnown(id: string, whenMissing: () => void = () => undefined): Promise<StripeSubscriptionLike | null> {
    return this.retrieve(id).catch((err: unknown) => {
      if (!(err instanceof MissingSubscription)) throw err;
      whenMissing();
      return null;
    });
  }

  /** A failed Stripe call as billing_unavailable, logged without its message (which can quote parameters). */
  unavailable(err: unknown, what: string): ContractError {
    if (err instanceof ContractError) return err;
    const transient = this.connection?.isTransient(err) ?? false;
    const summary = this.connection?.errorSummary(err) ?? {};
    if (transient) this.logger.warn(summary, what);
    else this.logger.error(summary, `${what}: check STRIPE_SECRET_KEY and STRIPE_PRICE_ID`);
    return new ContractError('billing_unavailable', { retryAfterSeconds: BILLING_RETRY_AFTER_SECONDS });
  }
}
