import { BATCH_MAX_ITEMS, type BatchMetadata } from '../../../../shared/api/check-batch';
import type { BatchAnswer } from './check-list-api';
import type { RowOutcome, RowQuestion } from './list-model';
import { outcomeOf } from './list-outcomes';
import { NOT_CHECKED } from './list-words';

/** Waits for the minute's checks to come back, one after another, before the page stops and says so. */
export const MAX_WAITS = 5;
/** When the server says to wait but not how long: the limit is per minute. */
const DEFAULT_WAIT_SECONDS = 60;

/** Why a run stopped before every row was sent; null when every row was. */
export type StopReason = keyof typeof NOT_CHECKED | null;

export interface SendProgress {
  checked: number;
  total: number;
  /** Seconds the page waits before sending the next rows again (the practice's checks for this minute are used up). */
  waiting?: number;
}

export interface SendOptions {
  ask(questions: RowQuestion[]): Promise<BatchAnswer>;
  /** Resolves after `seconds`, or at once when `signal` aborts. */
  sleep(seconds: number, signal: AbortSignal): Promise<void>;
  /** Cancel: the batch under way is still answered and kept; nothing more is sent. */
  signal: AbortSignal;
  onProgress(progress: SendProgress): void;
}

export interface SendResult {
  outcomes: RowOutcome[];
  metadata: BatchMetadata | null;
  stopped: StopReason;
}

const REFUSALS: Readonly<Record<string, Exclude<StopReason, null>>> = {
  batch_allowance_used: 'allowance',
  subscription_inactive: 'inactive',
  unauthenticated: 'signedOut',
};

/**
 * Sends every row that is `not_checked` and has a question, in batches of at most 500, one after another. When the
 * practice's checks for the minute are used up it waits as long as the server says (a few times at most) and goes
 * on; any other refusal stops the run, and every row it did not send stays `not_checked` with the reason in words.
 */
export async function sendRows(start: readonly RowOutcome[], options: SendOptions): Promise<SendResult> {
  const outcomes = [...start];
  const pending = outcomes.flatMap((o, i) => (o.state === 'not_checked' && o.question ? [i] : []));
  const total = pending.length;
  let checked = 0;
  let metadata: BatchMetadata | null = null;
  let stopped: StopReason = null;
  let waits = 0;
  options.onProgress({ checked, total });
  for (let at = 0; at < pending.length && stopped === null;) {
    if (options.signal.aborted) {
      stopped = 'cancelled';
      break;
    }
    // What is left of today's allowance, once an answer has said: the last rows it allows go as a smaller batch (a
    // batch over what is left is refused whole), and none left stops the run without asking.
    const room = metadata === null ? BATCH_MAX_ITEMS : Math.min(BATCH_MAX_ITEMS, metadata.rows_left_today);
    if (room <= 0) {
      stopped = 'allowance';
      break;
    }
    const batch = pending.slice(at, at + room);
    const questions = batch.map((i) => outcomes[i]!.question!);
    const answer = await options.ask(questions);
    if (answer.kind === 'answered') {
      batch.forEach((row, k) => {
        outcomes[row] = outcomeOf(answer.results[k]!, questions[k]!, outcomes[row]!.note);
      });
      metadata = answer.metadata;
      checked += batch.length;
      at += batch.length;
      waits = 0;
      options.onProgress({ checked, total });
    } else if (answer.kind === 'refused' && answer.code === 'rate_limited') {
      if (++waits > MAX_WAITS) stopped = 'busy';
      else {
        const seconds = answer.retryAfter ?? DEFAULT_WAIT_SECONDS;
        options.onProgress({ checked, total, waiting: seconds });
        await options.sleep(seconds, options.signal);
        options.onProgress({ checked, total });
      }
    } else {
      stopped = answer.kind === 'unreachable' ? 'unreachable' : (REFUSALS[answer.code] ?? 'notAccepted');
    }
  }
  if (stopped !== null) {
    const reason = NOT_CHECKED[stopped];
    for (const i of pending) if (outcomes[i]!.state === 'not_checked') outcomes[i] = { ...outcomes[i]!, reason };
  }
  return { outcomes, metadata, stopped };
}

/** A wait that ends early when `signal` aborts (Cancel while the page waits). */
export function abortableSleep(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, seconds * 1000);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
