import { useCallback, useRef, useState } from 'react';
import { checkThroughBackground } from '../../common/messaging';
import type { CheckOutcome } from '../../../ui/result/outcome';
import { ResultView } from '../../../ui/result/ResultView';
import { PostcodeForm } from './PostcodeForm';

/**
 * A postcode checked through the background, and the same postcode checked again (a result's Retry). `forget` takes
 * the answer away, and any answer still on its way: the field no longer holds the postcode it was for.
 */
function usePostcodeCheck() {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<CheckOutcome | null>(null);
  const asked = useRef(0);

  const check = useCallback(async (value: string) => {
    const seq = ++asked.current;
    setBusy(true);
    setOutcome(null);
    const result = await checkThroughBackground(value);
    if (seq !== asked.current) return;
    setOutcome(result);
    setBusy(false);
  }, []);

  const forget = useCallback(() => {
    asked.current++;
    setBusy(false);
    setOutcome(null);
  }, []);

  const retry = useCallback(() => {
    if (outcome) void check(outcome.postcode);
  }, [outcome, check]);

  return { busy, outcome, check, forget, retry };
}

/** The popup's check by hand: the postcode field, and the answer for what the field holds (never for what it held). */
export function PostcodeCheck({ onOpenOptions }: { onOpenOptions(): void }) {
  const { busy, outcome, check, forget, retry } = usePostcodeCheck();
  return (
    <>
      <PostcodeForm busy={busy} onCheck={(value) => void check(value)} onEdit={forget} />
      {busy && <p role="status">Checking…</p>}
      {outcome && !busy && <ResultView outcome={outcome} onOpenOptions={onOpenOptions} onRetry={retry} />}
    </>
  );
}
