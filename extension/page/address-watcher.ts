import { IdleBatch, ShadowFollowingObserver } from './dom-watch';
import { MAX_LABEL_TEXT, MAX_TEXT_POSTCODES, scanAdded, type TextPostcode } from './address-scan';

function same(a: TextPostcode, b: TextPostcode): boolean {
  return a.node === b.node && a.start === b.start && a.end === b.end && a.postcode === b.postcode;
}

export interface TextPostcodeHooks {
  /** Postcodes newly shown in the page's text (at most MAX_TEXT_POSTCODES tracked at any time). */
  onFound(found: readonly TextPostcode[]): void;
  /** Postcodes whose text was removed or changed: their ranges no longer hold them. Reported before new ones. */
  onGone(gone: readonly TextPostcode[]): void;
}

export interface TextPostcodeWatcherOptions {
  /** Most postcodes tracked at once (default MAX_TEXT_POSTCODES). */
  limit?: number;
  /** Tag name(s) of the extension's own elements, never looked into. */
  ownTag?: string | readonly string[];
}

const OBSERVED: MutationObserverInit = { childList: true, subtree: true, characterData: true };

/** How long what was added or changed may wait for idle time before it is read anyway. */
const READ_WAIT_MS = 300;

/** What a MutationRecord carries that the watcher reads (tests pass plain objects). */
export interface TextMutation {
  type: string;
  target: Node;
  addedNodes: ArrayLike<Node>;
  removedNodes: ArrayLike<Node>;
}

/**
 * Follows the postcodes shown in one document's text: a MutationObserver of its own (child lists and character
 * data, on the document and on each open shadow root met) notes what changed; removals are reported at once, and
 * what was added or changed is read in idle time, a batch at a time. A changed text is read again, and so is the
 * element after it (the value cell after a label or state cell that changed).
 */
export class TextPostcodeWatcher {
  private readonly byNode = new Map<Text, TextPostcode[]>();
  private count = 0;
  private readonly observer: ShadowFollowingObserver;
  /** Nodes added or changed, read in the next idle time. */
  private readonly pending: IdleBatch;
  private readonly limit: number;
  private readonly ownTag: string | readonly string[] | undefined;

  constructor(
    private readonly doc: Document,
    private readonly hooks: TextPostcodeHooks,
    options: TextPostcodeWatcherOptions = {},
  ) {
    this.limit = options.limit ?? MAX_TEXT_POSTCODES;
    this.ownTag = options.ownTag;
    this.observer = new ShadowFollowingObserver(doc, OBSERVED, (records) => this.handleMutations(records));
    this.pending = new IdleBatch(doc, READ_WAIT_MS, (nodes) => this.read(nodes));
  }

  get running(): boolean {
    return this.observer.running;
  }

  /** The postcodes tracked now, in the order found. */
  get found(): TextPostcode[] {
    return [...this.byNode.values()].flat();
  }

  /** Starts observing; the page's text is read in the next idle time (or at `flush()`). */
  start(): void {
    if (this.observer.running) return;
    this.observer.start();
    this.queue(this.doc);
  }

  /** Stops observing and reports every tracked postcode gone. */
  stop(): void {
    this.observer.stop();
    this.pending.clear();
    const gone = this.found;
    this.byNode.clear();
    this.count = 0;
    if (gone.length > 0) this.hooks.onGone(gone);
  }

  /** One batch of mutation records (what the observer calls; public for tests, whose DOM may not report text edits). */
  handleMutations(records: readonly TextMutation[]): void {
    if (!this.observer.running) return;
    let removed = false;
    const changed = new Set<Text>();
    for (const record of records) {
      if (record.type === 'characterData') {
        if (record.target.nodeType === 3) {
          changed.add(record.target as Text);
          this.queueWithNext(record.target);
        }
        continue;
      }
      const added = record.addedNodes;
      for (let i = 0; i < added.length; i++) this.queueWithNext(added[i]!);
      if (record.removedNodes.length > 0) removed = true;
    }
    if (!removed && changed.size === 0) return;
    const gone: TextPostcode[] = [];
    for (const [node, matches] of this.byNode) {
      if (node.isConnected && !changed.has(node)) continue;
      this.byNode.delete(node);
      this.count -= matches.length;
      gone.push(...matches);
    }
    if (gone.length > 0) this.hooks.onGone(gone);
  }

  /** Reads what is waiting to be read now, instead of in idle time. */
  flush(): void {
    this.pending.flush();
  }

  private read(nodes: readonly Node[]): void {
    if (!this.observer.running) return;
    const found: TextPostcode[] = [];
    const gone: TextPostcode[] = [];
    const adopt = (shadow: ShadowRoot) => void this.observer.adopt(shadow);
    for (const node of nodes) {
      if (!node.isConnected) continue;
      const fresh = scanAdded([node], { limit: this.limit, ownTag: this.ownTag, onShadowRoot: adopt });
      // A text read again drops what it no longer holds.
      if (node.nodeType === 3) gone.push(...this.keepOnly(node as Text, fresh));
      for (const match of fresh) {
        const known = this.byNode.get(match.node);
        if (known?.some((k) => same(k, match))) continue;
        if (this.count >= this.limit) break;
        if (known) known.push(match);
        else this.byNode.set(match.node, [match]);
        this.count++;
        found.push(match);
      }
    }
    if (gone.length > 0) this.hooks.onGone(gone);
    if (found.length > 0) this.hooks.onFound(found);
  }

  /** Forgets what `node` was tracked for and no longer holds (`fresh`: what it holds now); returns what went. */
  private keepOnly(node: Text, fresh: readonly TextPostcode[]): TextPostcode[] {
    const old = this.byNode.get(node) ?? [];
    const kept = old.filter((o) => fresh.some((f) => same(f, o)));
    if (kept.length === old.length) return [];
    this.count -= old.length - kept.length;
    if (kept.length > 0) this.byNode.set(node, kept);
    else this.byNode.delete(node);
    return old.filter((o) => !kept.includes(o));
  }

  private queueWithNext(node: Node): void {
    this.queue(node);
    const next = node.nodeType === 3 ? node.parentElement?.nextElementSibling : (node as Element).nextElementSibling;
    if (next && (next.textContent ?? '').length <= MAX_LABEL_TEXT) this.queue(next);
  }

  private queue(node: Node): void {
    if (node.nodeType !== 1 && node.nodeType !== 3 && node.nodeType !== 9 && node.nodeType !== 11) return;
    this.pending.add(node);
  }
}
