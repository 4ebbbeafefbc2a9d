import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchedLogDestination } from '../../../server/log-destination';
import { REPO_ROOT, TSX } from '../../helpers/child-env';

/** Stands in for the stdout writer: records what reaches it and when it was asked to flush. */
function recordingWriter() {
  const writes: string[] = [];
  const calls: string[] = [];
  const writer = {
    write: (text: string) => void writes.push(text),
    flush: (cb?: () => void) => {
      calls.push('flush');
      cb?.();
    },
    flushSync: () => void calls.push('flushSync'),
  };
  return { writes, calls, writer: writer as unknown as ConstructorParameters<typeof BatchedLogDestination>[0] };
}

describe('BatchedLogDestination', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('holds lines until the delay has passed, then writes them once, in order', () => {
    const { writes, writer } = recordingWriter();
    const destination = new BatchedLogDestination(writer, 1024, 200);
    destination.write('a\n');
    destination.write('b\n');
    vi.advanceTimersByTime(199);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['a\nb\n']);
    // The next line starts a new wait of its own.
    destination.write('c\n');
    vi.advanceTimersByTime(200);
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('writes as soon as a batch is full, without waiting', () => {
    const { writes, writer } = recordingWriter();
    const destination = new BatchedLogDestination(writer, 10, 200);
    destination.write('12345\n');
    expect(writes).toEqual([]);
    destination.write('67890\n');
    expect(writes).toEqual(['12345\n67890\n']);
    vi.advanceTimersByTime(1000);
    expect(writes).toHaveLength(1);
  });

  it('hands everything queued to the writer on flush and flushSync', () => {
    const { writes, calls, writer } = recordingWriter();
    const destination = new BatchedLogDestination(writer, 1024, 200);
    destination.write('a\n');
    const done = vi.fn();
    destination.flush(done);
    expect(writes).toEqual(['a\n']);
    expect(done).toHaveBeenCalledOnce();
    destination.write('b\n');
    destination.flushSync();
    expect(writes).toEqual(['a\n', 'b\n']);
    expect(calls).toEqual(['flush', 'flushSync']);
    // Nothing left for the timer to write twice.
    vi.advanceTimersByTime(1000);
    expect(writes).toHaveLength(2);
  });
});

describe('the stdout logger', () => {
  it('writes the lines still queued when the process exits, even by process.exit right after logging', () => {
    const script = [
      `import { createLogger } from ${JSON.stringify(path.join(REPO_ROOT, 'server/logger.ts'))};`,
      `const logger = createLogger('info');`,
      `for (let i = 0; i < 3; i++) logger.info({ i }, 'queued');`,
      `process.exit(0);`,
    ].join('\n');
    const stdout = execFileSync(TSX, ['--eval', script], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 15_000 });
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { i: number; msg: string });
    expect(lines.map((l) => [l.i, l.msg])).toEqual([
      [0, 'queued'],
      [1, 'queued'],
      [2, 'queued'],
    ]);
  });

  it('exits within its bound when stdout is not being read, and says on stderr how many lines it dropped', async () => {
    // A FIFO whose reader holds it open and never reads: full after 64 KiB, as under a stopped log shipper.
    const dir = mkdtempSync(path.join(tmpdir(), 'dte-stdout-'));
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeFd = openSync(fifo, constants.O_WRONLY);
    const script = [
      `import { createLogger } from ${JSON.stringify(path.join(REPO_ROOT, 'server/logger.ts'))};`,
      `const logger = createLogger('info');`,
      `for (let i = 0; i < 2000; i++) logger.info({ i, pad: 'x'.repeat(80) }, 'queued');`,
      `process.exit(0);`,
    ].join('\n');
    const child = spawn(TSX, ['--eval', script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', writeFd, 'pipe'],
      detached: true,
    });
    closeSync(writeFd);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let timer: NodeJS.Timeout | undefined;
    try {
      const exit = await Promise.race([
        new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
        new Promise((resolve) => (timer = setTimeout(() => resolve('still running after 10 s'), 10_000))),
      ]);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(stderr).toMatch(/^\d+ log lines dropped at exit: stdout was not taking them\n$/);
    } finally {
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      closeSync(readFd);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
