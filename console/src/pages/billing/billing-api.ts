import { BILLING_ENDPOINTS } from '../../../../shared/api/billing';
import type { ConsoleCalls } from '../../console-calls';

/** The Billing page's calls. */
export const billingApi = ({ signedIn }: ConsoleCalls) => ({
  billing: () => signedIn(BILLING_ENDPOINTS.view),
  /** Where to send the browser: Stripe Checkout, or the Customer Portal. */
  checkout: () => signedIn(BILLING_ENDPOINTS.checkout),
  billingPortal: () => signedIn(BILLING_ENDPOINTS.portal),
  /** Back from Checkout: the server reads the Checkout Session now rather than waiting for Stripe's webhook. */
  completeCheckout: (sessionId: string) =>
    signedIn(BILLING_ENDPOINTS.completeCheckout, { body: { session_id: sessionId } }),
});
