import { useEffect, useRef, useState } from 'react';
import type { BatchMetadata } from '../../../../shared/api/check-batch';
import { checkBatch } from './check-list-api';
import type { RowOutcome } from './list-model';
import { abortableSleep, sendRows, type SendProgress } from './list-send';

const consoleFetch = (input: string, init?: RequestInit) => fetch(input, init);

/** A run under way, or finished: the outcome of every row, and what the last answer said of the data. */
export interface Run {
  outcomes: RowOutcome[];
  metadata: BatchMetadata | null;
  finished: boolean;
  /** When it finished (ISO). */
  ranAt?: string;
}

/**
 * The sending of a list's rows: start (again, with the rows not checked), its progress, cancel, forget. A run that
 * ended because the session did calls `sessionEnded`; a page left meanwhile sends nothing more.
 */
export function useListRun(sessionEnded: () => void) {
  const [run, setRun] = useState<Run | null>(null);
  const [progress, setProgress] = useState<SendProgress | null>(null);
  const current = useRef<AbortController | null>(null);
  useEffect(() => () => current.current?.abort(), []);

  const send = async (start: RowOutcome[], metadata: BatchMetadata | null) => {
    const controller = new AbortController();
    current.current = controller;
    setRun({ outcomes: start, metadata, finished: false });
    const result = await sendRows(start, {
      ask: (questions) => checkBatch(consoleFetch, questions),
      sleep: abortableSleep,
      signal: controller.signal,
      onProgress: setProgress,
    });
    // Forgotten meanwhile (another list chosen): its answers are for a list no longer on the page.
    if (controller !== current.current) return;
    current.current = null;
    if (result.stopped === 'signedOut') sessionEnded();
    setProgress(null);
    setRun({
      outcomes: result.outcomes,
      metadata: result.metadata ?? metadata,
      finished: true,
      ranAt: new Date().toISOString(),
    });
  };

  const cancel = () => current.current?.abort();
  const forget = () => {
    cancel();
    current.current = null;
    setRun(null);
    setProgress(null);
  };
  return { run, progress, send, cancel, forget };
}
