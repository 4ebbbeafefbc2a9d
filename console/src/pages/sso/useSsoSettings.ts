import { useState } from 'react';

import type { SsoSettingsData, SsoSettingsRequest } from '../../../../shared/api/sso';
import type { AccountFailure, AccountResult } from '../../../../ui/api/account-result';
import type { Notice } from '../../../../ui/common/NoticeLine';
import { useConsoleApi, useLoad } from '../../use-load';
import { ssoFailureWords } from './sso-words';

/**
 * The organisation's single sign-on: its settings (read once, then as each change answers them), saving them whole,
 * removing them after a confirmation. One request at a time.
 */
export function useSsoSettings() {
  const api = useConsoleApi();
  const { result, setResult } = useLoad((a) => a.ssoSettings());
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const [confirmingRemove, setConfirmingRemove] = useState(false);
  const describe = (failure: AccountFailure) => ssoFailureWords(failure) ?? api.describe(failure);

  const run = async (action: () => Promise<void>) => {
    setNotice(null);
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  };

  /** Saving and removing answer alike: the settings as they now stand, or why not. */
  const change = (call: () => Promise<AccountResult<SsoSettingsData>>, done: string) =>
    run(async () => {
      const answer = await call();
      if (!answer.ok) {
        setNotice({ kind: 'error', text: describe(answer) });
        return;
      }
      setResult(answer);
      setNotice({ kind: 'ok', text: done });
    });

  const save = (request: SsoSettingsRequest) =>
    change(() => api.saveSsoSettings(request), 'Single sign-on saved. It applies from the next sign-in.');

  const remove = () => {
    setConfirmingRemove(false);
    return change(
      () => api.removeSsoSettings(),
      'Single sign-on removed: everyone signs in with their password again.',
    );
  };

  return { result, busy, notice, setNotice, save, remove, confirmingRemove, setConfirmingRemove, describe };
}
