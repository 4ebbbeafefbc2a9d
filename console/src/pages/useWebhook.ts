import { useState } from 'react';
import type { NewWebhookData } from '../../../shared/api/webhook';
import { copyText } from '../../../ui/common/clipboard';
import type { Notice } from '../../../ui/common/NoticeLine';
import { useConsoleApi, useLoad } from '../use-load';

/**
 * The subscription's webhook: the one set (read once, then after each change), setting or replacing it (the answer
 * carries its signing secret, shown once), removing it after a confirmation. One request at a time.
 */
export function useWebhook() {
  const api = useConsoleApi();
  const { result, reload } = useLoad((a) => a.webhook());
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const [created, setCreated] = useState<NewWebhookData | null>(null);
  const [confirmingRemove, setConfirmingRemove] = useState(false);

  const run = async (action: () => Promise<void>) => {
    setNotice(null);
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  };

  const save = (url: string) =>
    run(async () => {
      if (!url.trim()) {
        setNotice({ kind: 'error', text: 'Enter the URL your system receives the alerts at.' });
        return;
      }
      const answer = await api.setWebhook(url.trim());
      if (!answer.ok) {
        setNotice({ kind: 'error', text: api.describe(answer) });
        return;
      }
      setCreated(answer.data);
      reload();
    });

  const remove = () =>
    run(async () => {
      setConfirmingRemove(false);
      const answer = await api.removeWebhook();
      if (!answer.ok) {
        setNotice({ kind: 'error', text: api.describe(answer) });
        return;
      }
      setCreated(null);
      setNotice({ kind: 'ok', text: 'Webhook removed: no more alerts are sent.' });
      reload();
    });

  const copySecret = async () => {
    if (!created) return;
    setNotice(
      (await copyText(created.secret, document.body))
        ? { kind: 'ok', text: 'Secret copied to the clipboard.' }
        : { kind: 'error', text: 'Could not copy: select the secret and copy it by hand.' },
    );
  };

  return {
    result,
    busy,
    notice,
    created,
    confirmingRemove,
    setConfirmingRemove,
    save,
    remove,
    copySecret,
    describe: api.describe,
  };
}
