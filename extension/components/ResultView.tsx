import { useEffect, useRef } from 'react';
import { copyText } from '../../ui/common/clipboard';
import type { CheckOutcome } from '../common/outcome';
import { renderResultView } from '../result/result-view';
import { RESULT_CSS } from '../result/result-styles';

/**
 * The same result view as the in-page panel (result/result-view.ts), mounted into React. Building it with the DOM
 * helpers rather than JSX keeps one implementation of the words and one proof that server text stays text.
 */
export function ResultView(props: { outcome: CheckOutcome; onOpenOptions?(): void; onRetry?(): void }) {
  const host = useRef<HTMLDivElement>(null);
  const { outcome, onOpenOptions, onRetry } = props;
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const view = renderResultView(el.ownerDocument, outcome, {
      copy: (text) => copyText(text, el),
      openOptions: onOpenOptions,
      retry: onRetry,
    });
    el.replaceChildren(view);
    return () => el.replaceChildren();
  }, [outcome, onOpenOptions, onRetry]);
  return (
    <>
      <style>{RESULT_CSS}</style>
      <div ref={host} aria-live="polite" />
    </>
  );
}
