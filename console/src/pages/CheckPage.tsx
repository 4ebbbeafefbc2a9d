import { useCallback, useState } from 'react';
import type { CheckRequest } from '../../../shared/api/check';
import type { Account } from '../../../ui/account/useAccount';
import { ResultView } from '../../../ui/result/ResultView';
import { checkByHand, type ByHandAnswer } from '../check-api';
import { CheckForm } from './check/CheckForm';
import { CheckRefused } from './check/CheckRefused';
import './check/check.css';

const consoleFetch = (input: string, init?: RequestInit) => fetch(input, init);

/**
 * Check a postcode by hand, for a GP whose practice software the extension cannot reach (desktop software): the same
 * answer as the API's, shown as the extension shows it, with Copy proforma.
 */
export function CheckPage({ account }: { account: Account }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [answer, setAnswer] = useState<ByHandAnswer | null>(null);
  const { loadSession } = account;

  const check = useCallback(
    async (request: CheckRequest) => {
      setBusy(request.postcode);
      const result = await checkByHand(consoleFetch, request);
      setBusy(null);
      setAnswer(result);
      // The session ended meanwhile: reading it again shows the sign-in page, as on any other page.
      if (!result.ok && result.code === 'unauthenticated') void loadSession();
    },
    [loadSession],
  );

  return (
    <>
      <p className="hint">
        The same answer as the API and the browser extension give. Checks count against your organisation&apos;s rate
        limit, and appear in Usage as “by hand (console)”.
      </p>
      <CheckForm busy={busy !== null} onCheck={(request) => void check(request)} />
      <p className="hint" role="status">
        {busy === null ? '' : `Checking ${busy}…`}
      </p>
      {answer?.ok && <ResultView outcome={answer} focusHeading />}
      {answer && !answer.ok && <CheckRefused failure={answer} />}
    </>
  );
}
