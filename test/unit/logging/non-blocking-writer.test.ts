import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NonBlockingWriter } from '../../../server/log-destination';
import { waitFor } from '../../helpers/wait-for';

/** A pipe (FIFO) that is read only when the test says: full at its 64 KiB until then, as under a stopped reader. */
function pipe() {
  const dir = mkdtempSync(path.join(tmpdir(), 'dte-pipe-'));
  const fifo = path.join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  const open = new Set([readFd, writeFd]);
  let received = '';
  return {
    writeFd,
    /** Reads whatever is in the pipe now; returns everything read so far. */
    read(): string {
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        let n: number;
        try {
          n = readSync(readFd, buffer, 0, buffer.length, null);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EAGAIN') break;
          throw err;
        }
        if (n === 0) break;
        received += buffer.toString('utf8', 0, n);
      }
      return received;
    },
    closeReader() {
      closeSync(readFd);
      open.delete(readFd);
    },
    close() {
      for (const fd of open) closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Line `i`, about 100 bytes, numbered so that order and gaps show. */
const line = (i: number) => `${JSON.stringify({ i, pad: 'x'.repeat(80) })}\n`;
const numbers = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { i?: number; dropped_lines?: number; level?: number });

const pipes: ReturnType<typeof pipe>[] = [];
afterEach(() => {
  for (const p of pipes.splice(0)) p.close();
});
function newPipe() {
  const p = pipe();
  pipes.push(p);
  return p;
}

describe('NonBlockingWriter', () => {
  it('writes at once while the reader keeps up', () => {
    const p = newPipe();
    const writer = new NonBlockingWriter(p.writeFd);
    writer.write(line(0) + line(1), 2);
    writer.write(line(2), 1);
    expect(p.read()).toBe(line(0) + line(1) + line(2));
    expect(writer.dropped).toBe(0);
  });

  it('keeps what a full pipe refuses, without waiting for it, and writes it in order once the reader reads', async () => {
    const p = newPipe();
    const writer = new NonBlockingWriter(p.writeFd, 1024 * 1024, 5);
    const expected = Array.from({ length: 2_000 }, (_, i) => line(i)).join('');
    const started = performance.now();
    for (let i = 0; i < 2_000; i++) writer.write(line(i), 1);
    // 200 kB into a 64 KiB pipe nobody reads: returned at once all the same.
    expect(performance.now() - started).toBeLessThan(1_000);
    await waitFor(() => p.read().length === expected.length, { timeoutMs: 5_000, what: 'every line' });
    expect(p.read()).toBe(expected);
    expect(writer.dropped).toBe(0);
  });

  it('drops the lines beyond its bound and counts them, in a line of the log where they were lost', async () => {
    const p = newPipe();
    const writer = new NonBlockingWriter(p.writeFd, 16 * 1024, 5);
    for (let i = 0; i < 2_000; i++) writer.write(line(i), 1);
    // The pipe's 64 KiB and the 16 KiB queue: the rest is dropped.
    expect(writer.dropped).toBeGreaterThan(1_000);
    expect(writer.dropped).toBeLessThan(1_500);
    const dropped = writer.dropped;
    await waitFor(() => p.read().length > 64 * 1024 + 15 * 1024, { timeoutMs: 5_000, what: 'the queue to drain' });
    // The rest of the queue written (its retries run on timers, later on a busy machine): the next line goes straight out.
    await new Promise<void>((resolve, reject) => writer.flush((err) => (err ? reject(err) : resolve())));
    writer.write(line(5_000), 1);
    const lines = numbers(p.read());
    const kept = 2_000 - dropped;
    // Whole lines, the first `kept` of them in order, then the count, then the next line kept.
    expect(lines.slice(0, kept).map((l) => l.i)).toEqual(Array.from({ length: kept }, (_, i) => i));
    expect(lines[kept]).toMatchObject({ level: 40, dropped_lines: dropped });
    expect(lines.slice(kept + 1).map((l) => l.i)).toEqual([5_000]);
    expect(writer.unreportedDrops).toBe(0);
  });

  it('flushSync waits for a stopped reader no longer than its bound, then drops and counts what is left, in whole lines', () => {
    const p = newPipe();
    const writer = new NonBlockingWriter(p.writeFd, 1024 * 1024, 5, 300);
    // In batches of 100 lines (10 kB), as BatchedLogDestination hands them over: more than a full pipe takes whole.
    for (let b = 0; b < 10; b++) {
      writer.write(Array.from({ length: 100 }, (_, i) => line(b * 100 + i)).join(''), 100);
    }
    const started = performance.now();
    writer.flushSync();
    const tookMs = performance.now() - started;
    expect(tookMs).toBeGreaterThanOrEqual(290);
    expect(tookMs).toBeLessThan(1_500);
    // What the pipe took (64 KiB, some 650 lines) is out, every line of it whole; the rest is counted, exactly, for
    // the exit handler to report.
    const out = numbers(p.read());
    expect(out.map((l) => l.i)).toEqual(Array.from({ length: out.length }, (_, i) => i));
    expect(writer.dropped).toBeGreaterThan(250);
    expect(out.length + writer.dropped).toBe(1_000);
    expect(writer.unreportedDrops).toBe(writer.dropped);
  });

  it('flushSync writes everything while the reader reads, and runs flush callbacks', async () => {
    const p = newPipe();
    const writer = new NonBlockingWriter(p.writeFd, 1024 * 1024, 60_000);
    for (let i = 0; i < 1_000; i++) writer.write(line(i), 1);
    let flushed = false;
    writer.flush(() => (flushed = true));
    p.read();
    writer.flushSync();
    await waitFor(() => flushed, { what: 'the flush callback' });
    expect(numbers(p.read()).map((l) => l.i)).toEqual(Array.from({ length: 1_000 }, (_, i) => i));
    expect(writer.dropped).toBe(0);
  });

  it('once the reader has gone (EPIPE), drops and counts without throwing', () => {
    const p = newPipe();
    const writer = new NonBlockingWriter(p.writeFd);
    p.closeReader();
    expect(() => writer.write(line(0), 1)).not.toThrow();
    writer.write(line(1) + line(2), 2);
    writer.flushSync();
    expect(writer.dropped).toBe(3);
    expect(writer.unreportedDrops).toBe(3);
  });
});
