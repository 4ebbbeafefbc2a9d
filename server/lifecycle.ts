/**
 * What a process has opened, to be closed in reverse order: each thing is registered as soon as it is open, so a
 * start that fails half-way closes exactly what it had opened, and a stop closes in the one order that is right
 * (the users of a store before the store, the stores before the database they run on).
 */
export class CloseStack {
  private readonly entries: { name: string; close: () => unknown }[] = [];
  private closing: Promise<void> | null = null;

  /** Registers `close` to run at close(), before everything registered earlier. */
  defer(name: string, close: () => unknown): void {
    if (this.closing) throw new Error(`cannot open ${name}: closing`);
    this.entries.push({ name, close });
  }

  /** Opens something and registers its close. */
  async open<T>(name: string, open: () => Promise<T> | T, close: (opened: T) => unknown): Promise<T> {
    const opened = await open();
    this.defer(name, () => close(opened));
    return opened;
  }

  /**
   * Runs every registered close, newest first, each after the previous one has finished, even when one fails; then
   * throws the first failure (named by what it closed). Calling it again waits for the same run.
   */
  close(): Promise<void> {
    this.closing ??= this.unwind();
    return this.closing;
  }

  /**
   * Closes after a failed start, keeping the start's own error: the caller rethrows that, not a failure to close
   * what was half open.
   */
  async abandon(): Promise<void> {
    await this.close().catch(() => undefined);
  }

  private async unwind(): Promise<void> {
    let first: Error | null = null;
    while (this.entries.length > 0) {
      const { name, close } = this.entries.pop()!;
      try {
        await close();
      } catch (err) {
        first ??= new Error(`could not close ${name}: ${(err as Error).message}`, { cause: err });
      }
    }
    if (first) throw first;
  }
}

/** Builds with `build(stack)`, and closes what it had opened when it throws. */
export async function openAll<T>(stack: CloseStack, build: (stack: CloseStack) => Promise<T>): Promise<T> {
  try {
    return await build(stack);
  } catch (err) {
    await stack.abandon();
    throw err;
  }
}

/** The value of `open`, opened on first use and the same promise after (a failed open is tried again next time). */
export function once<T>(open: () => Promise<T>): () => Promise<T> {
  let opening: Promise<T> | null = null;
  return () => {
    opening ??= open().catch((err: unknown) => {
      opening = null;
      throw err;
    });
    return opening;
  };
}

/**
 * Work a request started that its answer does not wait for (mail sent after a same-for-everyone answer, a reset
 * request processed after its answer): a failure goes to `onError`, never to the caller, and a stopping server waits
 * for what is still running (`drain`, deferred on the CloseStack).
 */
export class AfterAnswer {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly onError: (err: unknown) => void) {}

  run(work: Promise<unknown>): void {
    const run = work.then(
      () => undefined,
      (err: unknown) => this.onError(err),
    );
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** Waits until nothing is running, including work started meanwhile. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}

/** What a serving process runs besides answering requests: started once it listens, stopped first (background.ts). */
export interface BackgroundJob {
  /** What `BackgroundWork.start(only)` selects it by (several jobs may share one: each feature's purge). */
  name: string;
  start(): void;
  /** Ends the job and resolves once its work under way has finished. */
  stop(): unknown;
}

/** Something a feature opened that must be closed (or drained) at stop: registered on the CloseStack in order. */
export interface Closer {
  name: string;
  close(): unknown;
}

/**
 * What a feature's `open*()` gives its process: the service, the background jobs it needs driven (the server starts
 * them; a CLI, which runs none, ignores them) and what must be closed at stop. The server and the admin CLI open a
 * feature by the same function, so it is built one way.
 */
export interface OpenedFeature<S> {
  service: S;
  jobs: readonly BackgroundJob[];
  closers: readonly Closer[];
}

/**
 * How often each feature drops what has expired (sessions, old login failures, invitations and reset links, old usage
 * counts); every write of those drops them too.
 */
export const PURGE_INTERVAL_MS = 10 * 60_000;

/** A job that runs `run` every `ms` (a timer that never keeps the process alive by itself). */
export function every(name: string, ms: number, run: () => void): BackgroundJob {
  let timer: NodeJS.Timeout | null = null;
  return {
    name,
    start() {
      timer ??= setInterval(run, ms).unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}

/**
 * The features a process opens, in the order it opens them: each one's closers go on the CloseStack as it opens (so
 * they close in reverse, before the stores under them), and its jobs join the list the background work runs.
 */
export class OpenFeatures {
  private readonly opened: BackgroundJob[] = [];

  constructor(readonly stack: CloseStack) {}

  /** Takes an opened feature's jobs and closers; returns its service. */
  add<S>(feature: OpenedFeature<S>): S {
    for (const closer of feature.closers) this.stack.defer(closer.name, () => closer.close());
    this.opened.push(...feature.jobs);
    return feature.service;
  }

  /** Every job of the features added so far, in the order they were added. */
  get jobs(): readonly BackgroundJob[] {
    return this.opened;
  }
}
