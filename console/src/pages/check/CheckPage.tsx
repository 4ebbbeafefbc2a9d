import { useCallback, useRef, useState } from 'react';
import type { CheckRequest } from '../../../../shared/api/check';
import type { Account } from '../../../../ui/account/useAccount';
import { ResultView } from '../../../../ui/result/ResultView';
import { Link } from '../../router';
import { checkByHand, type ByHandAnswer } from './check-api';
import { CheckForm } from './CheckForm';
import { CheckRefused } from './CheckRefused';
import './check.css';

/** The list page's route (console/src/pages/check-list): a whole appointment list or a quarter's claims at once. */
const CHECK_LIST_ROUTE = 'check-list';

const consoleFetch = (input: string, init?: RequestInit) => fetch(input, init);

/**
 * Check a postcode by hand, for a GP whose practice software the extension cannot reach (desktop software): the same
 * answer as the API's, shown as the extension shows it, with Copy proforma. An answer is only ever shown beside the
 * postcode and suburb it is for: editing either, or a check the form refuses, takes it away.
 */
export function CheckPage({ account }: { account: Account }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [answer, setAnswer] = useState<ByHandAnswer | null>(null);
  /** Counts the checks asked and the edits: an answer that arrives after either is for fields that changed. */
  const asked = useRef(0);
  const { loadSession } = account;

  const check = useCallback(
    async (request: CheckRequest) => {
      const seq = ++asked.current;
      setBusy(request.postcode);
      setAnswer(null);
      const result = await checkByHand(consoleFetch, request);
      // The session ended meanwhile: reading it again shows the sign-in page, as on any other page.
      if (!result.ok && result.code === 'unauthenticated') void loadSession();
      if (seq !== asked.current) return;
      setBusy(null);
      setAnswer(result);
    },
    [loadSession],
  );

  const forget = useCallback(() => {
    asked.current++;
    setBusy(null);
    setAnswer(null);
  }, []);

  return (
    <>
      <p className="hint">
        The same answer as the API and the browser extension give. Checks here count towards your practice&apos;s checks
        per minute, and appear in Usage as “by hand (console)”.
      </p>
      <p className="hint">
        Checking many patients — an appointment list or a quarter&apos;s telehealth claims?{' '}
        <Link to={CHECK_LIST_ROUTE}>Check a list</Link>.
      </p>
      <CheckForm busy={busy !== null} onCheck={(request) => void check(request)} onEdit={forget} />
      <p className="hint" role="status">
        {busy === null ? '' : `Checking ${busy}…`}
      </p>
      {answer?.ok && <ResultView outcome={answer} focusHeading />}
      {answer && !answer.ok && <CheckRefused failure={answer} />}
    </>
  );
}
