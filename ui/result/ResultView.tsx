import { useEffect, useRef } from 'react';
import { copyText } from '../common/clipboard';
import type { CheckOutcome } from './outcome';
import { renderResultView } from './result-view';
import { RESULT_CSS } from './result-styles';

/** Documents that already have the result's styles (one sheet per document, however many views it shows). */
const styled = new WeakSet<Document>();

/**
 * The result's styles as a constructed stylesheet: the console's CSP (style-src 'self') refuses a <style> element,
 * but not a sheet built through the CSSOM; the extension's popup takes it alike, so both load the styles one way.
 */
function adoptResultStyles(doc: Document): void {
  if (styled.has(doc)) return;
  const view = doc.defaultView;
  if (!view) return;
  const sheet = new view.CSSStyleSheet();
  sheet.replaceSync(RESULT_CSS);
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  styled.add(doc);
}

/**
 * The same result view as the extension's in-page panel (result-view.ts), mounted into React: the extension's popup
 * and the console's Check page. Building it with the DOM helpers rather than JSX keeps one implementation of the
 * words and one proof that server text stays text.
 *
 * `focusHeading`: a result asked for on a page of its own moves focus to its heading, which then says it; otherwise
 * (the popup) the view is a polite live region.
 */
export function ResultView(props: {
  outcome: CheckOutcome;
  onOpenOptions?(): void;
  onRetry?(): void;
  focusHeading?: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  const { outcome, onOpenOptions, onRetry, focusHeading = false } = props;
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    adoptResultStyles(el.ownerDocument);
    const view = renderResultView(el.ownerDocument, outcome, {
      copy: (text) => copyText(text, el),
      openOptions: onOpenOptions,
      retry: onRetry,
    });
    el.replaceChildren(view);
    if (focusHeading) {
      const heading = view.querySelector<HTMLElement>('h2');
      heading?.setAttribute('tabindex', '-1');
      heading?.focus();
    }
    return () => el.replaceChildren();
  }, [outcome, onOpenOptions, onRetry, focusHeading]);
  return <div ref={host} aria-live={focusHeading ? undefined : 'polite'} />;
}
