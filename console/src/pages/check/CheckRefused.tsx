import { useLayoutEffect, useRef } from 'react';
import type { ByHandFailure } from './check-api';
import { useConsoleApi } from '../../use-load';
import { checkFailureWords } from './check-words';

/** A check the server refused (or could not be asked): what happened and what to do, with focus on it. */
export function CheckRefused({ failure }: { failure: ByHandFailure }) {
  const api = useConsoleApi();
  const heading = useRef<HTMLHeadingElement>(null);
  const words = checkFailureWords(failure, (f) =>
    api.describe({ ok: false, code: f.code, message: f.message, status: f.status }),
  );
  // Each new answer takes focus, as a result does: the heading, which reads out the explanation with it. In the same
  // task as the words are drawn (a layout effect), so nobody — a screen reader or a test — sees the words without focus.
  useLayoutEffect(() => heading.current?.focus(), [failure]);
  return (
    <section className="check-refused" aria-labelledby="check-refused-heading" data-testid="check-refused">
      <h2 id="check-refused-heading" ref={heading} tabIndex={-1} aria-describedby="check-refused-text">
        {words.title}
      </h2>
      <p id="check-refused-text">{words.text}</p>
    </section>
  );
}
