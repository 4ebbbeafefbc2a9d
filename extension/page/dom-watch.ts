/**
 * What the page's watchers (the field watcher and the address watcher) share: work put off until the page is idle,
 * and one MutationObserver that follows the document into the open shadow roots met along the way (a document's
 * observer sees nothing that happens inside a shadow root).
 */

/** The extension's own tag names, upper case as `tagName` has them, from one tag or several. */
export function ownTagSet(ownTag: string | readonly string[] | undefined): ReadonlySet<string> {
  const list = ownTag === undefined ? [] : typeof ownTag === 'string' ? [ownTag] : ownTag;
  return new Set(list.map((t) => t.toUpperCase()));
}

export interface Cancellable {
  cancel(): void;
}

/** Runs `run` when the page is idle (at the latest after `timeoutMs`), or on the next task where it cannot tell. */
export function whenIdle(doc: Document, run: () => void, timeoutMs: number): Cancellable {
  const view = doc.defaultView;
  if (view && typeof view.requestIdleCallback === 'function') {
    const id = view.requestIdleCallback(run, { timeout: timeoutMs });
    return { cancel: () => view.cancelIdleCallback(id) };
  }
  const id = setTimeout(run, 0);
  return { cancel: () => clearTimeout(id) };
}

/**
 * Nodes set aside to be handled together in the page's next idle time, or at once on `flush()`: one idle callback
 * per batch, however many nodes a burst of mutations adds.
 */
export class IdleBatch {
  private readonly pending = new Set<Node>();
  private handle: Cancellable | null = null;

  constructor(
    private readonly doc: Document,
    private readonly timeoutMs: number,
    private readonly run: (nodes: Node[]) => void,
  ) {}

  add(node: Node): void {
    this.pending.add(node);
    if (this.handle) return;
    this.handle = whenIdle(
      this.doc,
      () => {
        this.handle = null;
        this.flush();
      },
      this.timeoutMs,
    );
  }

  /** Handles what is waiting now, instead of in idle time. */
  flush(): void {
    this.handle?.cancel();
    this.handle = null;
    const nodes = [...this.pending];
    this.pending.clear();
    this.run(nodes);
  }

  /** Drops what is waiting, unhandled. */
  clear(): void {
    this.pending.clear();
    this.handle?.cancel();
    this.handle = null;
  }
}

/**
 * One MutationObserver over a document and each open shadow root adopted into it, all with the same options. A stop
 * forgets the shadow roots: the next start observes the document alone again.
 */
export class ShadowFollowingObserver {
  private observer: MutationObserver | null = null;
  /** Shadow roots observed since start. */
  private shadowRoots = new WeakSet<ShadowRoot>();

  constructor(
    private readonly doc: Document,
    private readonly init: MutationObserverInit,
    private readonly onRecords: (records: MutationRecord[]) => void,
  ) {}

  get running(): boolean {
    return this.observer !== null;
  }

  start(): void {
    if (this.observer) return;
    const Observer = this.doc.defaultView?.MutationObserver ?? globalThis.MutationObserver;
    this.observer = new Observer(this.onRecords);
    this.observer.observe(this.doc, this.init);
  }

  stop(): void {
    this.observer?.disconnect();
    this.observer = null;
    this.shadowRoots = new WeakSet();
  }

  /** Whether `shadow` is observed already. */
  follows(shadow: ShadowRoot): boolean {
    return this.shadowRoots.has(shadow);
  }

  /** Observes an open shadow root too. False when it already was, or when stopped: nothing new to look into. */
  adopt(shadow: ShadowRoot): boolean {
    if (!this.observer || this.shadowRoots.has(shadow)) return false;
    this.shadowRoots.add(shadow);
    this.observer.observe(shadow, this.init);
    return true;
  }
}
