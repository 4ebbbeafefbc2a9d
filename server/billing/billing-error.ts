import type { ApiErrorCode } from '../../shared/api/errors';

/** The contract errors billing answers (shared/api/errors.ts). */
export type BillingErrorCode = Extract<
  ApiErrorCode,
  | 'billing_not_configured'
  | 'billing_unavailable'
  | 'already_subscribed'
  | 'no_billing_account'
  | 'checkout_not_found'
  | 'invalid_signature'
  | 'invalid_json'
>;

/** A billing refusal: the routers answer it as its contract error, the admin CLI as one line. */
export class BillingError extends Error {
  constructor(
    readonly code: BillingErrorCode,
    message: string = code,
  ) {
    super(message);
    this.name = 'BillingError';
  }
}
