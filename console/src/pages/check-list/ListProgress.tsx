import { useLayoutEffect, useRef } from 'react';
import { waitWords } from '../../../../ui/result/wait-words';
import type { SendProgress } from './list-send';
import { progressWords } from './list-words';

/** A run under way: how many rows are checked, any wait for the practice's checks of the minute, and Cancel. */
export function ListProgress({ progress, onCancel }: { progress: SendProgress | null; onCancel(): void }) {
  // The button pressed to start is gone: focus would fall to the page's start, with Cancel a long way off by Tab.
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), []);
  return (
    <section aria-labelledby="list-sending-heading">
      <h2 id="list-sending-heading" ref={heading} tabIndex={-1}>
        Checking the list
      </h2>
      <p role="status" data-testid="list-progress">
        {progress ? progressWords(progress.checked, progress.total) : ''}
        {progress?.waiting !== undefined &&
          `. Your practice's checks for this minute are used up: waiting ${waitWords(progress.waiting)}, then going on.`}
      </p>
      <progress max={progress?.total || 1} value={progress?.checked ?? 0} aria-label="Rows checked" />
      <p className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </p>
    </section>
  );
}
