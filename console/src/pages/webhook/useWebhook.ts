import { useState } from 'react';
import type { NewWebhookData, WebhookTestData } from '../../../../shared/api/webhook';
import { copyWithNotice } from '../../../../ui/common/clipboard';
import type { Notice } from '../../../../ui/common/NoticeLine';
import type { ConsoleApi } from '../../console-api';
import { useConsoleApi, useLoad } from '../../use-load';

/** How a test delivery went, in words: "Delivered: HTTP 200", "Not delivered: receiver answered HTTP 500"… */
export function testOutcomeWords(test: WebhookTestData): Notice {
  const status = test.http_status !== null ? `HTTP ${test.http_status}` : null;
  if (test.delivered) return { kind: 'ok', text: status ? `Delivered: ${status}` : 'Delivered' };
  return { kind: 'error', text: `Not delivered: ${test.error ?? status ?? 'no answer'}` };
}

type Run = (action: () => Promise<void>) => Promise<void>;

/** Sending the webhook a test delivery, one request at a time with the page's others (`run`, `busy`). */
function useTestDelivery(api: ConsoleApi, run: Run, busy: boolean, reload: () => void) {
  /** The last test delivery's outcome (or that one is being sent); null before any, and after a change. */
  const [outcome, setOutcome] = useState<Notice>(null);
  const send = async () => {
    if (busy) return;
    await run(async () => {
      setOutcome({ kind: 'ok', text: 'Sending a test delivery…' });
      const answer = await api.testWebhook();
      if (!answer.ok) {
        setOutcome({ kind: 'error', text: api.describe(answer) });
        // Removed meanwhile (another tab, another admin): the page shows that it is gone.
        if (answer.code === 'no_webhook') reload();
        return;
      }
      setOutcome(testOutcomeWords(answer.data));
    });
  };
  return { outcome, send, clear: () => setOutcome(null) };
}

/**
 * Setting a webhook, or asking first when one is set: a new one comes with a new signing secret, and the receiver
 * rejects every delivery until it is given that secret. `confirming`: the URL waiting for the person's yes.
 */
function useReplaceConfirmation(hasWebhook: boolean, save: (url: string) => Promise<void>, say: (n: Notice) => void) {
  const [confirming, setConfirming] = useState<string | null>(null);
  const ask = (url: string) => {
    say(null);
    const trimmed = url.trim();
    if (!trimmed) say({ kind: 'error', text: 'Enter the URL your system receives the alerts at.' });
    else if (hasWebhook) setConfirming(trimmed);
    else void save(trimmed);
  };
  const yes = () => {
    if (confirming === null) return;
    setConfirming(null);
    void save(confirming);
  };
  return { confirming, ask, yes, cancel: () => setConfirming(null) };
}

/**
 * The subscription's webhook: the one set (read once, then after each change), setting it or replacing it after a
 * confirmation (the answer carries its signing secret, shown once), removing it after a confirmation, sending it a
 * test delivery. One request at a time.
 */
export function useWebhook() {
  const api = useConsoleApi();
  const { result, reload } = useLoad((a) => a.webhook());
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const [created, setCreated] = useState<NewWebhookData | null>(null);
  const [confirmingRemove, setConfirmingRemove] = useState(false);

  const run: Run = async (action) => {
    setNotice(null);
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  };
  const test = useTestDelivery(api, run, busy, reload);

  const save = (url: string) =>
    run(async () => {
      const answer = await api.setWebhook(url);
      if (!answer.ok) {
        setNotice({ kind: 'error', text: api.describe(answer) });
        return;
      }
      setCreated(answer.data);
      test.clear();
      reload();
    });

  const replace = useReplaceConfirmation(result?.ok === true && result.data.url !== null, save, setNotice);

  const remove = () =>
    run(async () => {
      setConfirmingRemove(false);
      const answer = await api.removeWebhook();
      if (!answer.ok) {
        setNotice({ kind: 'error', text: api.describe(answer) });
        return;
      }
      setCreated(null);
      test.clear();
      setNotice({ kind: 'ok', text: 'Webhook removed: no more alerts are sent.' });
      reload();
    });

  const copySecret = async () => {
    if (!created) return;
    setNotice(await copyWithNotice(created.secret, 'Secret'));
  };

  return {
    result,
    busy,
    notice,
    created,
    confirmingRemove,
    setConfirmingRemove,
    confirmingReplace: replace.confirming,
    cancelReplace: replace.cancel,
    save: replace.ask,
    confirmReplace: replace.yes,
    remove,
    testOutcome: test.outcome,
    sendTest: test.send,
    copySecret,
    describe: api.describe,
  };
}
