import type { BillingData } from '../../../../shared/api/billing';
import type { Account } from '../../../../ui/account/useAccount';
import { NoticeLine } from '../../../../ui/common/NoticeLine';
import { Link } from '../../router';
import { OperatorContact, useOperatorContact } from '../../signup/OperatorContact';
import { lastAccessDayWords } from '../../../../shared/domain/paid-until';
import { dateLine, endedWords, endingWords, paymentRetrying } from './billing-words';
import { useBilling, type CheckoutReturn, type Completion } from './useBilling';

/** The subscription as it is: plan, status, the date that matters, why access ended or is at risk. */
function Subscription({ billing }: { billing: BillingData }) {
  const date = dateLine(billing);
  const ended = endedWords(billing);
  const ending = endingWords(billing);
  const retryUntil = billing.ends_at ?? billing.expires_at;
  return (
    <section aria-labelledby="billing-subscription-heading">
      <h2 id="billing-subscription-heading">Subscription</h2>
      <dl className="status">
        <dt>Plan</dt>
        <dd>{billing.plan}</dd>
        <dt>Status</dt>
        <dd data-testid="billing-status">{billing.status === 'active' ? 'Active' : 'Inactive'}</dd>
        {date && (
          <>
            <dt data-testid="billing-date-label">{date.label}</dt>
            <dd data-testid="billing-date">{date.day}</dd>
          </>
        )}
      </dl>
      {ended && (
        <p className="notice error" data-testid="billing-ended">
          Access ended: {ended}
        </p>
      )}
      {ending && (
        <p className="hint" data-testid="billing-ending">
          {ending}
        </p>
      )}
      {paymentRetrying(billing) && (
        <p className="notice error" data-testid="billing-past-due">
          A payment failed; access continues
          {retryUntil ? ` until ${lastAccessDayWords(retryUntil)}` : ''} while Stripe retries; update your card in
          Manage billing.
        </p>
      )}
      {billing.status === 'inactive' && !ended && (
        <p className="hint" data-testid="billing-not-started">
          {billing.mode === 'stripe'
            ? 'No subscription yet: subscribe to have your practice’s checks answered.'
            : 'The subscription is not active yet: the service’s operator activates it.'}
        </p>
      )}
    </section>
  );
}

/** Subscribe and Manage billing for an owner in Stripe mode; otherwise who changes the subscription. */
function Payment({ billing, owner, busy, onSubscribe, onManage }: PaymentProps) {
  const contact = useOperatorContact();
  let body;
  if (billing.mode === 'operator') {
    body = (
      <p data-testid="billing-operator">
        {contact ? (
          <>
            Your subscription is managed by <OperatorContact contact={contact} />, who run this service. Ask them to
            start, change or end it.
          </>
        ) : (
          'Your subscription is not paid for in this console: whoever runs this service for your practice (often your IT provider) starts, changes and ends it. Ask them.'
        )}
      </p>
    );
  } else if (!owner) {
    body = (
      <p data-testid="billing-read-only">An owner of your team subscribes and manages billing for the practice.</p>
    );
  } else {
    body = (
      <>
        <p className="hint">
          Payments are made through Stripe: these buttons open Stripe’s pages, which bring you back here.
        </p>
        <div className="actions">
          {/* aria-disabled, not disabled: a disabled button would lose the keyboard's focus while Stripe answers. */}
          {billing.can_subscribe && (
            <button type="button" aria-disabled={busy} onClick={() => !busy && onSubscribe()}>
              Subscribe
            </button>
          )}
          {billing.can_manage_billing && (
            <button type="button" aria-disabled={busy} onClick={() => !busy && onManage()}>
              Manage billing
            </button>
          )}
        </div>
      </>
    );
  }
  return (
    <section aria-labelledby="billing-payment-heading">
      <h2 id="billing-payment-heading">Payment</h2>
      {body}
    </section>
  );
}

interface PaymentProps {
  billing: BillingData;
  owner: boolean;
  busy: boolean;
  onSubscribe(): void;
  onManage(): void;
}

/** What came of the Checkout the browser came back from. */
function Returned({
  returned,
  completion,
  hasKey,
}: {
  returned: CheckoutReturn;
  completion: Completion;
  hasKey: boolean;
}) {
  if (returned?.kind === 'cancelled') {
    return (
      <p className="notice ok" role="status" data-testid="billing-returned">
        Checkout was cancelled; nothing was charged.
      </p>
    );
  }
  if (returned?.kind === 'unreadable') {
    return (
      <p className="notice error" role="alert" data-testid="billing-returned">
        The address Stripe returned to does not name its checkout. If you paid, this page shows Active once Stripe
        confirms it.
      </p>
    );
  }
  if (!returned || !completion) return null;
  if (!completion.ok) {
    return (
      <p className="notice error" role="alert" data-testid="billing-returned">
        {completion.text}
      </p>
    );
  }
  if (completion.data.status !== 'active') {
    return (
      <p className="notice ok" role="status" data-testid="billing-returned">
        Thank you: the payment is being confirmed. This page shows Active once Stripe confirms it.
      </p>
    );
  }
  return (
    <div className="notice ok" role="status" data-testid="billing-returned">
      <p>Thank you — the subscription is active.</p>
      {!hasKey && (
        <p>
          <Link to="key">Generate your API key</Link>
        </p>
      )}
    </div>
  );
}

/**
 * /console/billing: the subscription (plan, status, renewal or end, why access ended), Subscribe and Manage billing
 * for owners when Stripe takes the payments, and what came of a Checkout the browser just came back from.
 */
export function BillingPage({ account }: { account: Account }) {
  const billing = useBilling(account);
  const { result } = billing;
  // A server older than organisations has one account, which owns everything.
  const owner = account.membership === null || account.membership.role === 'owner';
  const hasKey = account.status?.key.status === 'active';
  const returned = <Returned returned={billing.returned} completion={billing.completion} hasKey={hasKey} />;
  if (!result) {
    return (
      <>
        {returned}
        <p className="hint">Loading the subscription…</p>
      </>
    );
  }
  if (!result.ok) {
    return (
      <>
        {returned}
        <p className="notice error" role="alert">
          Could not load the subscription: {billing.describe(result)}
        </p>
      </>
    );
  }
  return (
    <>
      {returned}
      <Subscription billing={result.data} />
      <Payment
        billing={result.data}
        owner={owner}
        busy={billing.busy}
        onSubscribe={billing.subscribe}
        onManage={billing.manage}
      />
      <NoticeLine notice={billing.notice} />
    </>
  );
}
