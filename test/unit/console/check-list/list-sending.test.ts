import { describe, expect, it } from 'vitest';
import type { CheckData } from '../../../../shared/api/check';
import type { BatchItemResult, BatchMetadata } from '../../../../shared/api/check-batch';
import { checkBatch, type BatchAnswer } from '../../../../console/src/pages/check-list/check-list-api';
import type { RowOutcome, RowQuestion } from '../../../../console/src/pages/check-list/list-model';
import {
  countStates,
  initialOutcomes,
  outcomeOf,
  runPeriod,
  sortedRows,
} from '../../../../console/src/pages/check-list/list-outcomes';
import { sendRows, type SendProgress } from '../../../../console/src/pages/check-list/list-send';

import { brisbaneResult, lismoreResult, METADATA, partialGreenResult } from '../../extension/fixtures';

const BATCH_METADATA: BatchMetadata = { ...METADATA, rows_per_day: 20_000, rows_left_today: 19_000 };
/** The fixtures are evaluated by the server's own rule, so their answers are whole (coverage included). */
const answered = (data = brisbaneResult().data, checked_date = '2026-03-10'): BatchItemResult => ({
  success: true,
  data: data as CheckData,
  checked_date,
});
const itemError = (code: string): BatchItemResult =>
  ({ success: false, error: { code, message: 'as the API says it' } }) as BatchItemResult;

describe('outcomeOf: an item’s result as the row’s state, in words', () => {
  const q: RowQuestion = { postcode: '4055', suburb: 'Bunya' };

  it('takes the state from the answer’s coverage: all, some (never a tick), none', () => {
    expect(outcomeOf(answered(), { postcode: '4000' })).toMatchObject({ state: 'all', judgedOn: '2026-03-10' });
    expect(outcomeOf(answered(partialGreenResult().data), q).state).toBe('some');
    const none = outcomeOf(answered(lismoreResult().data, '2025-03-10'), { postcode: '2480', date: '2025-03-10' });
    expect(none).toMatchObject({ state: 'none', judgedOn: '2025-03-10', question: { date: '2025-03-10' } });
    expect(none.answer?.location.postcode).toBe('2480');
    expect(outcomeOf(answered(), { postcode: '0800' }, 'read as 0800').note).toBe('read as 0800');
  });

  it('words each item error, never its code or the API’s message', () => {
    const cases: [string, RowOutcome['state'], string][] = [
      ['postcode_not_found', 'not_found', 'Postcode 4055 is not in the postcode data: check the postcode'],
      ['invalid_postcode', 'bad_row', '“4055” is not an Australian postcode: they run 0200–0299 and 0800–9999'],
      ['invalid_suburb', 'bad_row', '“Bunya” is not a suburb of postcode 4055: check its spelling'],
      ['invalid_date', 'bad_row', 'The date cannot be checked: dates run from 01/01/2006 to today'],
      ['data_unavailable', 'not_checked', 'The disaster data has not been loaded yet; check this row again later'],
      ['internal_error', 'not_checked', 'The server could not check this row; check it again later'],
    ];
    for (const [code, state, reason] of cases) {
      expect(outcomeOf(itemError(code), q), code).toEqual({ state, reason, question: q });
    }
  });
});

describe('initialOutcomes, countStates, runPeriod', () => {
  it('every row of the list has a state, and the counts add up to the rows', () => {
    const table = {
      headers: ['Name', 'Postcode', 'Date'],
      rows: [
        ['A', '4000', ''],
        ['B', '', ''],
        ['C', '800', '31/02/2025'],
        ['D', '800', '10/03/2025'],
      ],
      lines: [1, 2, 3, 4],
    };
    const outcomes = initialOutcomes(table, { postcode: 1, suburb: null, date: 2 }, '2026-05-01');
    expect(outcomes).toEqual([
      {
        state: 'not_checked',
        question: { postcode: '4000' },
        note: 'No service date in this row: judged on the day of the check',
      },
      { state: 'bad_row', reason: 'No postcode in this row' },
      { state: 'bad_row', reason: 'The date 31/02/2025 is not a real date' },
      {
        state: 'not_checked',
        question: { postcode: '0800', date: '2025-03-10' },
        note: 'Postcode 800 read as 0800 (a spreadsheet drops the leading zero)',
      },
    ]);
    expect(countStates(outcomes)).toEqual({ all: 0, some: 0, none: 0, not_found: 0, bad_row: 2, not_checked: 2 });
    // A date column written month first: its dated rows refused with the column's reason, the others asked.
    const us = {
      headers: ['Postcode', 'Date'],
      rows: [
        ['4000', '3/25/2025'],
        ['4000', '3/10/2025'],
        ['4000', ''],
      ],
      lines: [1, 2, 3],
    };
    expect(initialOutcomes(us, { postcode: 0, suburb: null, date: 1 }, '2026-05-01').map((o) => o.state)).toEqual([
      'bad_row',
      'bad_row',
      'not_checked',
    ]);
    expect(runPeriod(outcomes)).toBeNull();
    expect(
      runPeriod([
        { state: 'all', judgedOn: '2026-03-10' },
        { state: 'bad_row' },
        { state: 'none', judgedOn: '2025-01-02' },
      ]),
    ).toEqual({ from: '2025-01-02', to: '2026-03-10' });
  });

  it('sorts by state, postcode and date judged on, ties and rows without one in the list’s order', () => {
    const outcomes: RowOutcome[] = [
      { state: 'none', question: { postcode: '4000' }, judgedOn: '2026-01-02' },
      { state: 'bad_row' },
      { state: 'all', question: { postcode: '0800' }, judgedOn: '2025-01-01' },
      { state: 'none', question: { postcode: '2480' }, judgedOn: '2026-01-02' },
    ];
    expect(sortedRows(outcomes, 'row')).toEqual([0, 1, 2, 3]);
    expect(sortedRows(outcomes, 'state')).toEqual([2, 0, 3, 1]);
    expect(sortedRows(outcomes, 'postcode')).toEqual([2, 3, 0, 1]);
    expect(sortedRows(outcomes, 'date')).toEqual([2, 0, 3, 1]);
  });
});

/** `n` rows to send, postcodes 1000 + i. */
const pending = (n: number): RowOutcome[] =>
  Array.from({ length: n }, (_, i) => ({ state: 'not_checked', question: { postcode: String(1000 + i) } }));

/** An `ask` that gives each batch the next of `answers` (the last one again once they run out), and records it. */
function asking(...answers: ((questions: RowQuestion[]) => BatchAnswer)[]) {
  const asked: RowQuestion[][] = [];
  return {
    asked,
    ask: async (questions: RowQuestion[]) => {
      asked.push(questions);
      return answers[Math.min(asked.length - 1, answers.length - 1)]!(questions);
    },
  };
}
const allAnswered = (questions: RowQuestion[]): BatchAnswer => ({
  kind: 'answered',
  results: questions.map(() => answered()),
  metadata: BATCH_METADATA,
});
const refusedWith = (code: string, retryAfter?: number) => (): BatchAnswer => ({
  kind: 'refused',
  code,
  ...(retryAfter === undefined ? {} : { retryAfter }),
});

function options(ask: (q: RowQuestion[]) => Promise<BatchAnswer>, signal = new AbortController().signal) {
  const progress: SendProgress[] = [];
  const slept: number[] = [];
  return {
    progress,
    slept,
    options: {
      ask,
      signal,
      sleep: async (seconds: number) => void slept.push(seconds),
      onProgress: (p: SendProgress) => progress.push(p),
    },
  };
}

describe('sendRows', () => {
  it('sends 1,234 rows as batches of 500, 500 and 234, one after another, with progress; skips bad rows', async () => {
    const start: RowOutcome[] = [{ state: 'bad_row', reason: 'No postcode in this row' }, ...pending(1234)];
    const { ask, asked } = asking(allAnswered);
    const run = options(ask);
    const result = await sendRows(start, run.options);
    expect(asked.map((b) => b.length)).toEqual([500, 500, 234]);
    expect(asked.flat().map((q) => q.postcode)).toEqual(start.slice(1).map((o) => o.question!.postcode));
    expect(run.progress.map((p) => p.checked)).toEqual([0, 500, 1000, 1234]);
    expect(result.stopped).toBeNull();
    expect(result.metadata).toEqual(BATCH_METADATA);
    expect(countStates(result.outcomes)).toMatchObject({ all: 1234, bad_row: 1, not_checked: 0 });
  });

  it('waits as long as the server says when the minute’s checks are used up, then goes on', async () => {
    const { ask, asked } = asking(
      allAnswered,
      refusedWith('rate_limited', 17),
      refusedWith('rate_limited'),
      allAnswered,
    );
    const run = options(ask);
    const result = await sendRows(pending(700), run.options);
    expect(asked.map((b) => b.length)).toEqual([500, 200, 200, 200]);
    // No stated wait: a minute, the limit's period.
    expect(run.slept).toEqual([17, 60]);
    expect(run.progress).toContainEqual({ checked: 500, total: 700, waiting: 17 });
    expect(result.stopped).toBeNull();
    expect(countStates(result.outcomes).all).toBe(700);
  });

  it('stops after a few waits in a row: the rows not sent are not checked, with the reason', async () => {
    const { ask, asked } = asking(refusedWith('rate_limited', 1));
    const result = await sendRows(pending(3), options(ask).options);
    expect(asked).toHaveLength(6);
    expect(result.stopped).toBe('busy');
    expect(result.outcomes.every((o) => o.state === 'not_checked' && /used up several times/.test(o.reason!))).toBe(
      true,
    );
  });

  it('today’s allowance used up: the rows answered keep their results, the rest say why they were not checked', async () => {
    const { ask } = asking(allAnswered, refusedWith('batch_allowance_used', 3600));
    const result = await sendRows(pending(1200), options(ask).options);
    expect(result.stopped).toBe('allowance');
    expect(countStates(result.outcomes)).toMatchObject({ all: 500, not_checked: 700 });
    expect(result.outcomes[500]).toEqual({
      state: 'not_checked',
      question: { postcode: '1500' },
      reason: "Today's allowance of list rows is used up; it renews at midnight (Sydney time)",
    });
  });

  it('sends the last rows today’s allowance leaves as a smaller batch, then stops with the reason', async () => {
    // 620 left when the first 500 were answered: 120 go next, then nothing is left to ask for.
    const leaving = (left: number) => (questions: RowQuestion[]) => ({
      ...(allAnswered(questions) as Extract<BatchAnswer, { kind: 'answered' }>),
      metadata: { ...BATCH_METADATA, rows_left_today: left },
    });
    const { ask, asked } = asking(leaving(120), leaving(0));
    const result = await sendRows(pending(1200), options(ask).options);
    expect(asked.map((b) => b.length)).toEqual([500, 120]);
    expect(result.stopped).toBe('allowance');
    expect(countStates(result.outcomes)).toMatchObject({ all: 620, not_checked: 580 });
    expect(result.outcomes[620]!.reason).toBe(
      "Today's allowance of list rows is used up; it renews at midnight (Sydney time)",
    );
  });

  it('the server unreachable, then asked again: only the rows not checked are sent the second time', async () => {
    const down = asking(allAnswered, () => ({ kind: 'unreachable' }));
    const first = await sendRows(pending(800), options(down.ask).options);
    expect(first.stopped).toBe('unreachable');
    expect(first.outcomes[600]?.reason).toBe('The server could not be reached');
    const again = asking(allAnswered);
    const second = await sendRows(first.outcomes, options(again.ask).options);
    expect(again.asked.flat().map((q) => q.postcode)).toEqual(Array.from({ length: 300 }, (_, i) => String(1500 + i)));
    expect(countStates(second.outcomes)).toMatchObject({ all: 800, not_checked: 0 });
  });

  it('Cancel: the batch under way is kept, nothing more is sent, the rest say they were cancelled', async () => {
    const controller = new AbortController();
    const { ask, asked } = asking((questions) => {
      controller.abort();
      return allAnswered(questions);
    });
    const result = await sendRows(pending(1100), options(ask, controller.signal).options);
    expect(asked).toHaveLength(1);
    expect(result.stopped).toBe('cancelled');
    expect(countStates(result.outcomes)).toMatchObject({ all: 500, not_checked: 600 });
    expect(result.outcomes[1099]?.reason).toBe('You cancelled the check before this row was sent');
  });

  it('an inactive subscription or an ended session stops the run, in words', async () => {
    for (const [code, stopped] of [
      ['subscription_inactive', 'inactive'],
      ['unauthenticated', 'signedOut'],
      ['invalid_batch', 'notAccepted'],
    ] as const) {
      const result = await sendRows(pending(2), options(asking(refusedWith(code)).ask).options);
      expect(result.stopped, code).toBe(stopped);
      expect(result.outcomes[0]?.reason).not.toMatch(/_/);
    }
  });
});

describe('checkBatch', () => {
  function answering(status: number, body: unknown, headers: Record<string, string> = {}) {
    const asked: { url: string; init?: RequestInit }[] = [];
    const fetchFn = async (url: string, init?: RequestInit) => {
      asked.push({ url, init });
      return new Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json', ...headers },
      });
    };
    return { fetchFn, asked };
  }

  it('posts only postcode, suburb and date with the session, and reads the index-aligned results', async () => {
    const results = [answered(), itemError('postcode_not_found')];
    const { fetchFn, asked } = answering(200, { success: true, data: { results }, metadata: BATCH_METADATA });
    const sneaky = { postcode: '4000', name: 'Jane Smith', medicare: '2951 12345 1' } as RowQuestion;
    const answer = await checkBatch(fetchFn, [sneaky, { postcode: '0999', suburb: 'X', date: '2025-03-10' }]);
    expect(answer).toEqual({ kind: 'answered', results, metadata: BATCH_METADATA });
    expect(asked[0]!.url).toBe('/api/v1/check-batch');
    expect(asked[0]!.init).toMatchObject({ method: 'POST', credentials: 'same-origin' });
    expect(JSON.parse(asked[0]!.init!.body as string)).toEqual({
      items: [{ postcode: '4000' }, { postcode: '0999', suburb: 'X', date: '2025-03-10' }],
    });
  });

  it('a refusal keeps its code and stated wait; a gateway, a 5xx or a short answer is no answer', async () => {
    const refusal = (code: string) => ({ success: false, error: { code, message: 'm' } });
    const limited = answering(429, refusal('rate_limited'), { 'retry-after': '17' });
    expect(await checkBatch(limited.fetchFn, [{ postcode: '4000' }])).toEqual({
      kind: 'refused',
      code: 'rate_limited',
      retryAfter: 17,
    });
    const inactive = answering(403, refusal('subscription_inactive'));
    expect(await checkBatch(inactive.fetchFn, [{ postcode: '4000' }])).toEqual({
      kind: 'refused',
      code: 'subscription_inactive',
    });
    expect(await checkBatch(answering(503, refusal('server_busy')).fetchFn, [{ postcode: '4000' }])).toEqual({
      kind: 'unreachable',
    });
    expect(await checkBatch(answering(502, 'Bad gateway').fetchFn, [{ postcode: '4000' }])).toEqual({
      kind: 'unreachable',
    });
    const short = answering(200, { success: true, data: { results: [] }, metadata: BATCH_METADATA });
    expect(await checkBatch(short.fetchFn, [{ postcode: '4000' }])).toEqual({ kind: 'unreachable' });
    const down = async () => Promise.reject(new TypeError('Failed to fetch'));
    expect(await checkBatch(down, [{ postcode: '4000' }])).toEqual({ kind: 'unreachable' });
  });
});
