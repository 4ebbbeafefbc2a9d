import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplyDeadlines } from '../../../server/rate-limit/reply-deadlines';

const failure = (cause: unknown) => new Error('unavailable', { cause });

/** A command whose reply the test gives (or never gives). */
function command<T>() {
  let answer!: (value: T) => void;
  let fail!: (err: unknown) => void;
  const pending = new Promise<T>((resolve, reject) => ((answer = resolve), (fail = reject)));
  return { run: () => pending, answer, fail };
}

const settled = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (err: Error) => ({ err }),
  );

describe('ReplyDeadlines: one timer bounds every command of a connection', () => {
  it('passes replies through and maps a command’s own failure', async () => {
    const deadlines = new ReplyDeadlines(200, failure);
    const ok = command<number>();
    const bad = command<number>();
    const first = settled(deadlines.run(ok.run));
    const second = settled(deadlines.run(bad.run));
    ok.answer(7);
    bad.fail(new Error('NOSCRIPT'));
    expect(await first).toEqual({ value: 7 });
    const { err } = (await second) as { err: Error };
    expect(err.message).toBe('unavailable');
    expect((err.cause as Error).message).toBe('NOSCRIPT');
  });

  afterEach(() => void vi.useRealTimers());

  it('rejects each unanswered command at its own deadline, and drops a reply that comes later', async () => {
    // The clock and the timer are the test's: each deadline is seen to the millisecond, on a busy machine too.
    vi.useFakeTimers();
    const deadlines = new ReplyDeadlines(150, failure);
    const started = Date.now();
    const early = command<string>();
    const answered = command<string>();
    const late = command<string>();
    const timed = (outcome: Promise<{ value?: string; err?: Error }>) =>
      outcome.then((result) => ({ ...result, at: Date.now() - started }));
    const outcomes = [timed(settled(deadlines.run(early.run)))];
    await vi.advanceTimersByTimeAsync(60);
    outcomes.push(timed(settled(deadlines.run(answered.run))), timed(settled(deadlines.run(late.run))));
    answered.answer('in time');
    await vi.advanceTimersByTimeAsync(300);
    const [first, second, third] = await Promise.all(outcomes);
    expect(first).toMatchObject({ err: { message: 'unavailable' }, at: 150 });
    expect(first!.err!.cause).toEqual(new Error('no reply within 150 ms'));
    expect(second).toMatchObject({ value: 'in time', at: 60 });
    expect(third).toMatchObject({ err: { message: 'unavailable' }, at: 210 });
    late.answer('too late');
    expect(await settled(deadlines.run(() => Promise.resolve('next')))).toEqual({ value: 'next' });
  });

  it('keeps up with thousands of commands answered in order, out of order, or thrown at once', async () => {
    const deadlines = new ReplyDeadlines(1_000, failure);
    const commands = Array.from({ length: 3_000 }, () => command<number>());
    const outcomes = commands.map((c) => settled(deadlines.run(c.run)));
    commands.forEach((c, i) => (i % 3 === 0 ? c.answer(i) : undefined));
    [...commands].reverse().forEach((c, i) => (i % 3 !== 2 ? c.answer(-1) : undefined));
    const values = (await Promise.all(outcomes)).map((o) => (o as { value: number }).value);
    expect(values.filter((v) => v !== -1)).toHaveLength(1_000);
    const thrown = await settled(
      deadlines.run(() => {
        throw new Error('offline');
      }),
    );
    expect((thrown as { err: Error }).err.cause).toEqual(new Error('offline'));
  });
});
