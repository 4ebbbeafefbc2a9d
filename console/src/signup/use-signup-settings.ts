import { useEffect, useState } from 'react';
import type { SignupSettingsData } from '../../../shared/api/signup';
import type { AccountResult } from '../../../ui/api/account-result';
import { useConsoleApi } from '../use-load';

/** GET /api/v1/signup: whether this server offers sign-up, and how it is paid for. Null until it answers. */
export function useSignupSettings(): AccountResult<SignupSettingsData> | null {
  const api = useConsoleApi();
  const [settings, setSettings] = useState<AccountResult<SignupSettingsData> | null>(null);
  useEffect(() => {
    let live = true;
    void api.signupSettings().then((answer) => live && setSettings(answer));
    return () => {
      live = false;
    };
  }, [api]);
  return settings;
}
