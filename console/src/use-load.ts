import { useCallback, useEffect, useState } from 'react';
import type { AccountResult } from '../../ui/api/account-result';
import { useApi } from '../../ui/api/api-client';
import type { ConsoleApi } from './console-api';

/** The console's calls: the ApiProvider's client is the console's own (main.tsx). */
export function useConsoleApi(): ConsoleApi {
  return useApi() as ConsoleApi;
}

/**
 * One server read for a page: null while it is under way, then its result; `reload` reads again (after a change).
 * A page left before its answer arrives ignores it.
 */
export function useLoad<T>(load: (api: ConsoleApi) => Promise<AccountResult<T>>) {
  const api = useConsoleApi();
  const [result, setResult] = useState<AccountResult<T> | null>(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let live = true;
    void load(api).then((answer) => live && setResult(answer));
    return () => {
      live = false;
    };
    // `load` is a page's inline function: what it reads is fixed by the page, so a new closure is no new read.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, generation]);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { result, setResult, reload };
}

/**
 * `reload` whenever the window gets focus back: a page others change meanwhile (the team: someone accepted an
 * invitation) shows what is there now when the person returns to it.
 */
export function useReloadOnFocus(reload: () => void): void {
  useEffect(() => {
    window.addEventListener('focus', reload);
    return () => window.removeEventListener('focus', reload);
  }, [reload]);
}
