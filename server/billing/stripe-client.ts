import Stripe from 'stripe';
import type { StripeSettings } from '../config';
import { ContractError } from '../contract-error';

/** Long enough for Stripe's slowest calls, short enough that Subscribe answers before a person gives up. */
const STRIPE_TIMEOUT_MS = 10_000;
/** Stripe signs a delivery with its time; an older one is a replay (Stripe's own default tolerance). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * The official client, pointed at STRIPE_API_BASE (Stripe's API, a proxy, or a local stand-in), with what billing
 * needs to know of its errors. This module is the only one that loads the `stripe` package (some 20 MB of a
 * process's memory): billing-service.ts imports it only when STRIPE_* are set, so operator mode never loads it.
 */
export interface StripeConnection {
  api: Stripe;
  /**
   * The event Stripe signed, or invalid_signature (missing, wrong, or older than the tolerance); invalid_json when the
   * body is not JSON or has no string id and type. Nothing else of it is checked here.
   */
  verifiedEvent(raw: Buffer, signature: string | undefined, secret: string): Stripe.Event;
  /** Whether an error says the object asked for does not exist (a wrong id, another account's object). */
  isMissing(err: unknown): boolean;
  /** Whether an error is Stripe being unreachable or failing (worth a retry), not a request Stripe refused. */
  isTransient(err: unknown): boolean;
  /**
   * What of an error may be logged: its kind, code and status, never its message (which can quote a masked key or a
   * request's parameters).
   */
  errorSummary(err: unknown): Record<string, unknown>;
}

export function connectStripe(settings: Pick<StripeSettings, 'secretKey' | 'apiBase'>): StripeConnection {
  const base = new URL(settings.apiBase);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  const api = new Stripe(settings.secretKey, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    timeout: STRIPE_TIMEOUT_MS,
    // One retry rides out a blip; more would keep a person waiting on Subscribe for a Stripe that is down.
    maxNetworkRetries: 1,
    appInfo: { name: 'disaster-telehealth-eligibility' },
  });
  return {
    api,
    verifiedEvent: (raw, signature, secret) => verifiedEvent(api, raw, signature, secret),
    isMissing: (err) => err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404,
    isTransient: (err) =>
      err instanceof Stripe.errors.StripeConnectionError ||
      err instanceof Stripe.errors.StripeAPIError ||
      err instanceof Stripe.errors.StripeRateLimitError ||
      (err instanceof Stripe.errors.StripeError && (err.statusCode ?? 0) >= 500),
    errorSummary: (err) =>
      err instanceof Stripe.errors.StripeError
        ? { stripe_error: err.type, code: err.code, status: err.statusCode, request_id: err.requestId }
        : { stripe_error: err instanceof Error ? err.name : 'unknown' },
  };
}

function verifiedEvent(api: Stripe, raw: Buffer, signature: string | undefined, secret: string): Stripe.Event {
  if (!signature) throw new ContractError('invalid_signature');
  let event: Stripe.Event;
  try {
    event = api.webhooks.constructEvent(raw, signature, secret, SIGNATURE_TOLERANCE_SECONDS);
  } catch (err) {
    if (err instanceof Stripe.errors.StripeSignatureVerificationError) throw new ContractError('invalid_signature');
    throw new ContractError('invalid_json');
  }
  // Not an event at all. An event with an odd object (null, none) is still an event: subscriptionOfEvent finds it names
  // no subscription, and it is acknowledged as ignored.
  const shape = event as Partial<Stripe.Event> | null;
  if (typeof shape?.id !== 'string' || typeof shape.type !== 'string') throw new ContractError('invalid_json');
  return event;
}
