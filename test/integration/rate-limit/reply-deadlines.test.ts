import { describe, expect, it } from 'vitest';
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

  it('rejects each unanswered command at its own deadline, and drops a reply that comes later', async () => {
    const deadlines = new ReplyDeadlines(150, failure);
    const started = Date.now();
    const early = command<string>();
    const answered = command<string>();
    const late = command<string>();
    const outcomes = [settled(deadlines.run(early.run))];
    await new Promise((resolve) => setTimeout(resolve, 60));
    outcomes.push(settled(deadlines.run(answered.run)), settled(deadlines.run(late.run)));
    answered.answer('in time');
    const [first, second, third] = await Promise.all(
      outcomes.map(async (outcome) => ({ ...(await outcome), at: Date.now() - started })),
    );
    expect(first).toMatchObject({ err: { message: 'unavailable' } });
    expect((first as { err: Error }).err.cause).toEqual(new Error('no reply within 150 ms'));
    expect(first!.at).toBeGreaterThanOrEqual(140);
    expect(first!.at).toBeLessThan(210);
    expect(second).toMatchObject({ value: 'in time' });
    expect(third).toMatchObject({ err: { message: 'unavailable' } });
    expect(third!.at).toBeGreaterThanOrEqual(200);
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
