import { useEffect, useRef, useState } from 'react';
import type { BillingData } from '../../../../shared/api/billing';
import type { Account } from '../../../../ui/account/useAccount';
import type { AccountFailure } from '../../../../ui/api/account-result';
import type { Notice } from '../../../../ui/common/NoticeLine';
import type { ConsoleApi } from '../../console-api';
import { useConsoleApi, useLoad, useReloadOnFocus } from '../../use-load';
import { billingFailureWords } from './billing-words';

/** How the browser came back from Stripe Checkout, read from the address Stripe sent it to. */
export type CheckoutReturn =
  { kind: 'success'; sessionId: string } | { kind: 'cancelled' } | { kind: 'unreadable' } | null;

function readReturn(): CheckoutReturn {
  const query = new URLSearchParams(location.search);
  const checkout = query.get('checkout');
  if (checkout === 'cancelled') return { kind: 'cancelled' };
  if (checkout !== 'success') return null;
  const sessionId = query.get('session_id');
  return sessionId ? { kind: 'success', sessionId } : { kind: 'unreadable' };
}

/** What Checkout's return came to: completed (with the subscription as it now is), or refused in words. */
export type Completion = { ok: true; data: BillingData } | { ok: false; text: string } | null;

/**
 * The Billing page's state: the subscription (after completing a Checkout the browser came back from), and Subscribe
 * and Manage billing, which send the browser to Stripe.
 */
export function useBilling(account: Account) {
  const api = useConsoleApi();
  const [returned] = useState(readReturn);
  const [completion, setCompletion] = useState<Completion>(null);
  // Completed once: a later read (focus back on the window) waits for it, then reads the subscription as it is.
  const completing = useRef<ReturnType<ConsoleApi['completeCheckout']> | null>(null);
  const { loadStatus } = account;

  const load = async (a: ConsoleApi) => {
    if (returned?.kind === 'success') {
      const first = completing.current === null;
      // Read from Stripe now, so access does not wait for its webhook.
      completing.current ??= a.completeCheckout(returned.sessionId);
      const done = await completing.current;
      if (first && done.ok) {
        setCompletion({ ok: true, data: done.data });
        void loadStatus();
        return done;
      }
      if (first && !done.ok) setCompletion({ ok: false, text: billingFailureWords(done, api.describe) });
    }
    return a.billing();
  };
  const { result, reload } = useLoad(load);
  // Back from the Customer Portal in another tab, the page shows what changed there.
  useReloadOnFocus(reload);

  // The query was for this page once: a reload or a bookmark must not complete or announce it again.
  useEffect(() => {
    if (location.search) history.replaceState(history.state, '', location.pathname + location.hash);
  }, []);

  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const goTo = async (call: () => Promise<{ ok: true; data: { url: string } } | AccountFailure>) => {
    setBusy(true);
    setNotice(null);
    const answer = await call();
    if (answer.ok) {
      // Stripe's page: the console is left, so the buttons stay busy until it is.
      window.location.assign(answer.data.url);
      return;
    }
    setBusy(false);
    setNotice({ kind: 'error', text: billingFailureWords(answer, api.describe) });
    if (answer.code === 'already_subscribed' || answer.code === 'no_billing_account') reload();
  };

  return {
    result,
    returned,
    completion,
    busy,
    notice,
    describe: api.describe,
    subscribe: () => void goTo(() => api.checkout()),
    manage: () => void goTo(() => api.billingPortal()),
  };
}
