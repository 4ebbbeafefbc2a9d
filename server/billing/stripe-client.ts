import Stripe from 'stripe';
import type { StripeSettings } from '../config';

/** Long enough for Stripe's slowest calls, short enough that Subscribe answers before a person gives up. */
const STRIPE_TIMEOUT_MS = 10_000;

/** The official client, pointed at STRIPE_API_BASE (Stripe's API, a proxy, or a local stand-in). */
export function openStripe(settings: Pick<StripeSettings, 'secretKey' | 'apiBase'>): Stripe {
  const base = new URL(settings.apiBase);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(settings.secretKey, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    timeout: STRIPE_TIMEOUT_MS,
    // One retry rides out a blip; more would keep a person waiting on Subscribe for a Stripe that is down.
    maxNetworkRetries: 1,
    appInfo: { name: 'disaster-telehealth-eligibility' },
  });
}

/** Whether a Stripe error says the object asked for does not exist (a wrong id, another account's object). */
export function isMissing(err: unknown): boolean {
  return err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404;
}

/**
 * What of a Stripe error may be logged: its kind, code and status, never its message (which can quote a masked key or
 * a request's parameters).
 */
export function stripeErrorSummary(err: unknown): Record<string, unknown> {
  if (err instanceof Stripe.errors.StripeError) {
    return { stripe_error: err.type, code: err.code, status: err.statusCode, request_id: err.requestId };
  }
  return { stripe_error: err instanceof Error ? err.name : 'unknown' };
}

export const isStripeError = (err: unknown): err is Stripe.errors.StripeError =>
  err instanceof Stripe.errors.StripeError;
