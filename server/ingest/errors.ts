/**
 * Why a refresh was refused. Every kind keeps the last good data and last_updated:
 * - network: a source could not be fetched (after retries);
 * - structure: a source no longer looks as observed (no rows, missing columns or fields, truncated page);
 * - implausible: far fewer declarations than last time (a broken listing, not half of Australia recovering);
 * - invalid_records: event pages whose records failed validation (more than --max-invalid allows);
 * - busy: another refresh holds the lock on the data directory;
 * - browser: the list needed a browser (its rows are drawn by a script) and Chromium is missing, crashed or timed out;
 * - thin: the read is too small to be the whole list (below the floor, or recent activations missing from it).
 */
export type IngestErrorKind =
  'network' | 'structure' | 'implausible' | 'invalid_records' | 'busy' | 'browser' | 'thin' | 'internal';

export class IngestError extends Error {
  constructor(
    readonly kind: IngestErrorKind,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = 'IngestError';
  }
}

/** An event page that could not become a valid declaration: reported with where and why, never guessed. */
export interface RecordProblem {
  agrn: string;
  url: string | null;
  reason: string;
}
