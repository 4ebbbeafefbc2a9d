import { useLayoutEffect, useRef, useState } from 'react';
import type { WebhookData, WebhookDelivery } from '../../../../shared/api/webhook';
import { displayInstant } from '../../../../ui/common/display-dates';
import { NoticeLine, type Notice } from '../../../../ui/common/NoticeLine';
import { Confirm } from '../../Confirm';
import { useWebhook } from './useWebhook';

const DELIVERY_WORDS: Record<WebhookDelivery['status'], string> = {
  pending: 'Waiting to be sent',
  delivered: 'Delivered',
  retrying: 'Failed; trying again',
  failed: 'Failed; given up after a day of attempts',
};

function LastDelivery({ delivery }: { delivery: WebhookDelivery | null }) {
  if (!delivery) return <p data-testid="webhook-delivery">No delivery yet.</p>;
  return (
    <dl className="status" data-testid="webhook-delivery">
      <dt>Last delivery</dt>
      <dd>{DELIVERY_WORDS[delivery.status]}</dd>
      <dt>Alerts</dt>
      <dd>{delivery.alert_count}</dd>
      <dt>Attempts</dt>
      <dd>{delivery.attempts}</dd>
      <dt>Last attempt</dt>
      <dd>{delivery.last_attempt_at ? displayInstant(delivery.last_attempt_at) : '—'}</dd>
      <dt>Answer</dt>
      <dd>{delivery.http_status !== null ? `HTTP ${delivery.http_status}` : (delivery.error ?? '—')}</dd>
    </dl>
  );
}

function CurrentWebhook({ webhook }: { webhook: WebhookData }) {
  if (webhook.url === null) return <p data-testid="webhook-none">No webhook is set.</p>;
  return (
    <>
      <dl className="status">
        <dt>URL</dt>
        <dd data-testid="webhook-url">{webhook.url}</dd>
        <dt>Set</dt>
        <dd>{webhook.created_at ? displayInstant(webhook.created_at) : '—'}</dd>
      </dl>
      <LastDelivery delivery={webhook.last_delivery} />
    </>
  );
}

/** The secret shown once, with focus on it: the button that asked for it was busy meanwhile, and it is what is next. */
function NewSecret({ secret, onCopy }: { secret: string; onCopy(): void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), [secret]);
  return (
    <div className="new-key" role="region" aria-labelledby="secret-heading">
      {/* A heading of the page's own outline, which has no other level between it and the page's title. */}
      <h2 id="secret-heading" ref={heading} tabIndex={-1}>
        Signing secret
      </h2>
      <p>
        Shown once. Your system checks each delivery&apos;s X-Signature header with it (HMAC-SHA256 of the raw body).
      </p>
      <p>
        <code data-testid="webhook-secret">{secret}</code>
      </p>
      <button type="button" onClick={onCopy}>
        Copy
      </button>
    </div>
  );
}

interface WebhookFormProps {
  hasWebhook: boolean;
  busy: boolean;
  onSave(url: string): void;
  /** A replacement waiting for its confirmation: shown under the form, which gets focus back on Cancel. */
  confirming: { url: string; onYes(): void; onCancel(): void } | null;
}

function WebhookForm({ hasWebhook, busy, onSave, confirming }: WebhookFormProps) {
  const [url, setUrl] = useState('');
  const submit = useRef<HTMLButtonElement>(null);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSave(url);
      }}
      noValidate
    >
      <div className="field">
        <label htmlFor="webhook-url">Webhook URL</label>
        <input
          id="webhook-url"
          type="url"
          inputMode="url"
          placeholder="https://pms.clinic.example/hooks/dte"
          value={url}
          aria-describedby="webhook-url-hint"
          onChange={(e) => setUrl(e.target.value)}
        />
        <p id="webhook-url-hint" className="hint">
          Each new batch of catchment alerts is POSTed there as JSON.{' '}
          {hasWebhook ? 'Saving replaces the URL and the secret.' : ''}
        </p>
      </div>
      <button type="submit" ref={submit} disabled={busy}>
        {hasWebhook ? 'Replace webhook' : 'Save webhook'}
      </button>
      {confirming && (
        // Replacing rotates the signing secret: the receiver must be given the new one, or it refuses every delivery.
        <Confirm
          id="replace-text"
          yes="Yes, replace"
          onYes={confirming.onYes}
          onCancel={() => {
            confirming.onCancel();
            submit.current?.focus();
          }}
        >
          Replace the webhook? Alerts go to {confirming.url} from now on, signed with a new secret, shown once next. The
          current secret stops working at once: your receiving system must be updated with the new secret, or it will
          reject every delivery.
        </Confirm>
      )}
    </form>
  );
}

/**
 * How the last test delivery went. The live region stays in the page while a webhook is set, so that a screen reader
 * announces each outcome as it changes.
 */
function TestOutcome({ outcome }: { outcome: Notice }) {
  return (
    <>
      <p id="webhook-test-hint" className="hint">
        Send test POSTs <code>{'{"event":"test","alerts":[]}'}</code>, signed as every delivery is, and shows the
        answer. It is not retried nor shown as the last delivery.
      </p>
      <p className={`notice ${outcome?.kind ?? ''}`} role="status" data-testid="webhook-test-outcome">
        {outcome?.text}
      </p>
    </>
  );
}

/**
 * The subscription's webhook: where catchment alerts are sent, its last delivery, its secret once, a test delivery on
 * demand. `readOnly` (a member): the webhook as it is, without the form, Send test and Remove.
 */
export function WebhookPage({ readOnly }: { readOnly: boolean }) {
  const hook = useWebhook();
  const { result } = hook;
  if (!result) return <p className="hint">Loading the webhook…</p>;
  if (!result.ok) return <NoticeLine notice={{ kind: 'error', text: hook.describe(result) }} />;
  const hasWebhook = result.data.url !== null;
  if (readOnly) {
    return (
      <>
        <CurrentWebhook webhook={result.data} />
        <p className="hint" data-testid="webhook-read-only">
          An owner or admin of your team sets and removes the webhook.
        </p>
      </>
    );
  }
  return (
    <>
      <CurrentWebhook webhook={result.data} />
      {hook.created && <NewSecret secret={hook.created.secret} onCopy={() => void hook.copySecret()} />}
      <WebhookForm
        hasWebhook={hasWebhook}
        busy={hook.busy}
        onSave={hook.save}
        confirming={
          hook.confirmingReplace === null
            ? null
            : { url: hook.confirmingReplace, onYes: hook.confirmReplace, onCancel: hook.cancelReplace }
        }
      />
      {hasWebhook && !hook.confirmingRemove && (
        <div className="actions">
          {/* aria-disabled, not disabled: a disabled button would lose the keyboard's focus while the test is sent. */}
          <button
            type="button"
            aria-disabled={hook.busy}
            aria-describedby="webhook-test-hint"
            onClick={() => void hook.sendTest()}
          >
            Send test
          </button>
          <button type="button" className="danger" disabled={hook.busy} onClick={() => hook.setConfirmingRemove(true)}>
            Remove webhook
          </button>
        </div>
      )}
      {hasWebhook && <TestOutcome outcome={hook.testOutcome} />}
      {hook.confirmingRemove && (
        <Confirm
          id="remove-text"
          yes="Yes, remove"
          onYes={() => void hook.remove()}
          onCancel={() => hook.setConfirmingRemove(false)}
        >
          Remove the webhook? Alerts are no longer sent to it.
        </Confirm>
      )}
      <NoticeLine notice={hook.notice} />
    </>
  );
}
