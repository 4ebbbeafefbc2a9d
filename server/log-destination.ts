import fs from 'node:fs';

/** Queued log text that makes a write: enough lines that a busy server writes a few times a second, not per line. */
const BATCH_BYTES = 16 * 1024;
/** The longest a line waits for company before it is written anyway. */
const MAX_DELAY_MS = 200;

/**
 * Log text that stdout's reader has not taken yet, beyond which further lines are dropped (and counted) rather than
 * held: a reader that stops (a stopped pager, a wedged log shipper) must not grow the process without bound. A
 * healthy reader keeps this near zero; 4 MiB is some 25,000 request lines.
 */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** How soon a write that stdout refused (EAGAIN: its reader is behind) is tried again. */
const RETRY_MS = 50;
/**
 * The longest the exit handler spends handing queued lines to a stdout that is not taking them, before it drops them.
 * A reader that is merely slow catches up well within it; one that is stopped would otherwise hold the exit for ever.
 * The stop deadline (shutdown.ts) keeps this much of its budget for it.
 */
export const EXIT_FLUSH_MAX_MS = 2_000;
/** How long the exit handler sleeps between attempts while stdout is full. */
const EXIT_RETRY_MS = 10;
/**
 * A write to a pipe of at most PIPE_BUF bytes (4096 on Linux) is taken whole or not at all; a longer one may be taken
 * in part. Batches go out in whole lines of at most this much at a time (unless one line is longer), so a pipe that
 * fills never holds half a line followed by nothing, and what is dropped is whole lines, exactly counted.
 */
const ATOMIC_WRITE_BYTES = 4096;

/** Where BatchedLogDestination's batches go. */
export interface BatchWriter {
  /** `text` holds `lines` whole lines; the count is what is reported if they have to be dropped. */
  write(text: string, lines: number): void;
  /** `cb` runs once everything written so far is out (or has been dropped). */
  flush(cb?: (err?: Error) => void): void;
  /** Writes what is queued before returning, within a bound: for exit handlers, where no later callback would run. */
  flushSync(): void;
}

/**
 * Log lines collected and handed to the stdout writer in batches.
 *
 * Measured on the check endpoint under load: writing one line per request cost about 20 µs per request (an
 * asynchronous write per line or two), about a tenth of the request. sonic-boom's own `minLength` batching appends
 * each line to one growing string and measures its byte length on every write, copying the whole batch each time;
 * an array joined once per batch copies each line once.
 *
 * A line waits at most MAX_DELAY_MS. On exit, including after an uncaught exception, the queue is written before the
 * process ends, so nothing logged before the end is lost while stdout is being read; only a SIGKILL can drop the last
 * fraction of a second.
 */
export class BatchedLogDestination {
  private lines: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: BatchWriter,
    private readonly batchBytes = BATCH_BYTES,
    private readonly maxDelayMs = MAX_DELAY_MS,
  ) {}

  write(line: string): void {
    this.lines.push(line);
    this.bytes += line.length;
    if (this.bytes >= this.batchBytes) this.writeQueued();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.writeQueued(), this.maxDelayMs);
      this.timer.unref();
    }
  }

  /** pino's `logger.flush(cb)`: everything queued goes to the writer, and `cb` runs once it has been written. */
  flush(cb?: (err?: Error) => void): void {
    this.writeQueued();
    this.target.flush(cb);
  }

  /** Writes everything queued before returning (within the writer's bound): for exit handlers. */
  flushSync(): void {
    this.writeQueued();
    this.target.flushSync();
  }

  private writeQueued(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    const lines = this.lines.length;
    this.lines = [];
    this.bytes = 0;
    this.target.write(text, lines);
  }
}

interface Chunk {
  bytes: Buffer;
  /** Log lines in `bytes`. */
  lines: number;
  /** For a line reporting earlier drops: how many it reports, so that dropping it too loses no count. */
  reports: number;
}

/** For sleeping without an event loop (exit handlers): Atomics.wait on a value nothing ever changes. */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes to a descriptor that never blocks (see nonBlockingDescriptor), so that no log write can hold the process:
 * neither the main thread nor, at exit, a threadpool thread (Node's exit joins the threadpool, so one write stuck on
 * a full pipe kept a stopped server alive for as long as its reader was stopped).
 *
 * Lines are written in order. What stdout refuses is kept and retried, up to MAX_QUEUED_BYTES; lines beyond that are
 * dropped and counted, and once lines can be kept again a warning line in the log says how many were lost there.
 * At exit, what is still queued gets at most EXIT_FLUSH_MAX_MS, then is dropped and counted.
 */
export class NonBlockingWriter implements BatchWriter {
  private queue: Chunk[] = [];
  /** Bytes of queue[0] already written. */
  private offset = 0;
  private queuedBytes = 0;
  private retry: NodeJS.Timeout | undefined;
  private waiting: ((err?: Error) => void)[] = [];
  /** The reader has gone for good (EPIPE): nothing will be written any more. */
  private closed = false;
  /** Lines dropped that no line in the log has reported yet. */
  private unreported = 0;
  /** Every line dropped since the start. */
  dropped = 0;

  constructor(
    private readonly fd: number | undefined,
    private readonly maxQueuedBytes = MAX_QUEUED_BYTES,
    private readonly retryMs = RETRY_MS,
    private readonly exitFlushMs = EXIT_FLUSH_MAX_MS,
  ) {}

  /** Dropped lines that no line in the log reports: for the exit handler to say elsewhere. */
  get unreportedDrops(): number {
    return this.unreported;
  }

  write(text: string, lines: number): void {
    if (this.fd === undefined || this.closed) return this.drop(lines);
    const bytes = Buffer.from(text);
    // The reader may have caught up since the last retry: room is made before any line is given up.
    if (this.queuedBytes + bytes.length > this.maxQueuedBytes) this.writeQueued();
    if (this.queuedBytes + bytes.length > this.maxQueuedBytes) return this.drop(lines);
    if (this.unreported > 0) {
      const notice = Buffer.from(droppedNotice(this.unreported));
      this.enqueue({ bytes: notice, lines: 0, reports: this.unreported });
      this.unreported = 0;
    }
    this.enqueue({ bytes, lines, reports: 0 });
    this.writeAndRetry();
  }

  flush(cb?: (err?: Error) => void): void {
    this.writeAndRetry();
    if (!cb) return;
    if (this.queue.length === 0) process.nextTick(cb);
    else this.waiting.push(cb);
  }

  flushSync(): void {
    clearTimeout(this.retry);
    this.retry = undefined;
    const giveUpAt = Date.now() + this.exitFlushMs;
    while (this.writeQueued() === 'blocked') {
      const left = giveUpAt - Date.now();
      if (left <= 0) break;
      Atomics.wait(SLEEPER, 0, 0, Math.min(EXIT_RETRY_MS, left));
    }
    if (this.queue.length > 0) this.dropQueue();
    if (this.unreported > 0 && this.fd !== undefined && !this.closed) {
      // One attempt, never waited for: if stdout takes nothing more, the exit handler reports the count elsewhere.
      try {
        const notice = Buffer.from(droppedNotice(this.unreported));
        if (fs.writeSync(this.fd, notice) === notice.length) this.unreported = 0;
      } catch {
        // still full, or gone
      }
    }
  }

  private enqueue(chunk: Chunk): void {
    this.queue.push(chunk);
    this.queuedBytes += chunk.bytes.length;
  }

  private writeAndRetry(): void {
    if (this.writeQueued() !== 'blocked' || this.retry !== undefined) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.writeAndRetry();
    }, this.retryMs);
    // A retry must not keep a finished process alive: the exit handler makes the last attempt.
    this.retry.unref();
  }

  /** Writes as much of the queue as the descriptor takes now, without waiting. */
  private writeQueued(): 'done' | 'blocked' {
    while (this.queue.length > 0) {
      const chunk = this.queue[0]!;
      const end = piecesEnd(chunk.bytes, this.offset);
      let written: number;
      try {
        written = fs.writeSync(this.fd!, chunk.bytes, this.offset, end - this.offset);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return 'blocked';
        if (code === 'EPIPE') this.closed = true;
        // EPIPE, or a failure retrying would not cure (EIO, ENOSPC, EBADF): what is queued is lost either way.
        this.dropQueue();
        return 'done';
      }
      this.offset += written;
      this.queuedBytes -= written;
      if (this.offset === chunk.bytes.length) {
        this.queue.shift();
        this.offset = 0;
      }
    }
    this.settleWaiting();
    return 'done';
  }

  private drop(lines: number): void {
    this.dropped += lines;
    this.unreported += lines;
  }

  private dropQueue(): void {
    for (const [i, chunk] of this.queue.entries()) {
      if (i === 0 && this.offset > 0) {
        // Partly written, in whole lines: what is dropped is the lines after that (a report cut short is reported
        // again).
        if (chunk.reports > 0) this.unreported += chunk.reports;
        else this.drop(countLines(chunk.bytes, this.offset));
        continue;
      }
      this.drop(chunk.lines);
      this.unreported += chunk.reports;
    }
    this.queue = [];
    this.offset = 0;
    this.queuedBytes = 0;
    this.settleWaiting();
  }

  private settleWaiting(): void {
    if (this.waiting.length === 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const cb of waiting) process.nextTick(cb);
  }
}

const NEWLINE = 0x0a;

/** Where the next write from `offset` ends: whole lines, ATOMIC_WRITE_BYTES at most unless the first line is longer. */
function piecesEnd(bytes: Buffer, offset: number): number {
  if (bytes.length - offset <= ATOMIC_WRITE_BYTES) return bytes.length;
  const lastLineEnd = bytes.lastIndexOf(NEWLINE, offset + ATOMIC_WRITE_BYTES - 1);
  if (lastLineEnd >= offset) return lastLineEnd + 1;
  const firstLineEnd = bytes.indexOf(NEWLINE, offset);
  return firstLineEnd === -1 ? bytes.length : firstLineEnd + 1;
}

function countLines(bytes: Buffer, from: number): number {
  let count = 0;
  for (let i = bytes.indexOf(NEWLINE, from); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) count++;
  return count;
}

/** A log line of its own (pino's format, level warn) where lines were dropped. */
function droppedNotice(count: number): string {
  return `${JSON.stringify({
    level: 40,
    time: new Date().toISOString(),
    dropped_lines: count,
    msg: 'log lines dropped: stdout was not taking them',
  })}\n`;
}

/**
 * A descriptor on which writes to `fd` (stdout or stderr) return at once, EAGAIN when the reader is behind, rather
 * than wait for it; undefined when `fd` is closed.
 *
 * A pipe, FIFO or terminal is opened again through /proc: a description of its own, made non-blocking without
 * touching the one the process inherited (which the supervisor, npm or a shell may share, and Node itself leaves
 * blocking for a terminal). A socket cannot be opened that way (ENXIO), nor anything where there is no /proc; Node's
 * process.stdout makes a pipe or socket's own descriptor non-blocking (libuv), so that is used instead. A regular
 * file never waits for a reader, and opened again would be written from its start, so it is used as it is.
 */
export function nonBlockingDescriptor(fd: 1 | 2): number | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(fd);
  } catch {
    return undefined;
  }
  if (stat.isFile() || stat.isBlockDevice()) return fd;
  try {
    return fs.openSync(`/proc/self/fd/${fd}`, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  } catch {
    void (fd === 1 ? process.stdout : process.stderr);
    return fd;
  }
}

/** One attempt to write `text` to stderr, abandoned rather than waited for if stderr is full. */
function tryStderr(text: string): void {
  const fd = nonBlockingDescriptor(2);
  if (fd === undefined) return;
  try {
    fs.writeSync(fd, text);
  } catch {
    // full or gone: the count is lost with it
  } finally {
    if (fd !== 2) fs.closeSync(fd);
  }
}

let stdout: BatchedLogDestination | undefined;

/** The process's one stdout log destination, shared by every logger that does not name its own. */
export function stdoutLogDestination(): BatchedLogDestination {
  if (stdout) return stdout;
  const writer = new NonBlockingWriter(nonBlockingDescriptor(1));
  const destination = new BatchedLogDestination(writer);
  process.once('exit', () => {
    destination.flushSync();
    // Said where a person may see it, since the log itself could not take it.
    const lost = writer.unreportedDrops;
    if (lost > 0) tryStderr(`${lost} log lines dropped at exit: stdout was not taking them\n`);
  });
  stdout = destination;
  return destination;
}
