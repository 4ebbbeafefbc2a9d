import { completePostcode } from '../common/postcode';
import { IdleBatch, ownTagSet, ShadowFollowingObserver } from './dom-watch';
import { isPostcodeField } from './field-detection';
import { isTextLikeInput, LabelIndex, treeOf } from './field-markup';

export interface FieldWatcherHooks {
  /**
   * A postcode field's complete value changed: a 4-digit postcode, or `null` once it no longer holds one.
   * Called once per change, after typing pauses.
   */
  onPostcode(field: HTMLInputElement, postcode: string | null): void;
  /**
   * Typing made the field hold another 4-digit postcode than the one last reported, which `onPostcode` reports once
   * typing pauses: until then, what was shown for the old one is not the field's answer.
   */
  onPending?(field: HTMLInputElement, postcode: string): void;
  /** A field left the document (removed, or its form re-rendered). */
  onFieldGone(field: HTMLInputElement): void;
  /** Something was removed from the page: the caller may check that its own UI is still attached. */
  onNodesRemoved?(): void;
}

export interface FieldWatcherOptions {
  /** Quiet time after the last keystroke before a value counts. */
  debounceMs?: number;
  /**
   * How often the values of known postcode fields are re-read, for values set by script (a practice system
   * loading a patient record) which fire no input event. Only postcode fields are read; 0 turns it off.
   */
  pollMs?: number;
  /** Tag name(s) of the extension's own elements (badge hosts, overlay), which the watcher never looks into. */
  ownTag?: string | readonly string[];
}

/** NodeFilter.SHOW_ELEMENT (NodeFilter is not a global in every DOM the tests use). */
const SHOW_ELEMENT = 1;

/** A mutation record adding more nodes than this has its parent searched for shadow roots, not each node. */
const MANY_ADDED = 8;

/** How long an added subtree may wait for idle time before it is searched for shadow roots anyway. */
const SHADOW_SEARCH_WAIT_MS = 500;

/**
 * Inputs looked at in one go; more (a grid of thousands of rows) are looked at in slices of SLICE_MS, each its own
 * task, so the page stays responsive while their badges are added.
 */
const SLICE_INPUTS = 200;
const SLICE_MS = 8;

/** Inputs still to look at, with what they were found with. */
interface Backlog {
  inputs: Element[];
  next: number;
  labels: LabelIndex;
  tree?: Document | ShadowRoot;
}

/**
 * Finds postcode fields in one document, and in the open shadow roots of its web components, and reports their
 * complete values. One MutationObserver (child lists only, on the document and on each open shadow root found) sees
 * fields added later; typing is caught by one delegated listener at the document, not one per field (events from a
 * shadow root arrive retargeted to its host: the field is the first node of their composed path). Nothing is done per
 * element of the page except for inputs in the mutation callback, so the cost of a mutation is the cost of finding
 * the inputs inside what was added. Looking for shadow roots does visit every added element, so it waits for idle
 * time, a batch of added subtrees at a time.
 */
export class FieldWatcher {
  readonly fields = new Set<HTMLInputElement>();
  private readonly lastValue = new WeakMap<HTMLInputElement, string | null>();
  /** Fields whose new value went to `onPending`: their next value is reported even if it is the old one again. */
  private readonly announced = new WeakSet<HTMLInputElement>();
  private readonly timers = new Map<HTMLInputElement, ReturnType<typeof setTimeout>>();
  /** Child lists of the document and of the shadow roots found since start. */
  private readonly observer: ShadowFollowingObserver;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private readonly debounceMs: number;
  private readonly pollMs: number;
  private readonly ownTags: ReadonlySet<string>;
  /** Added subtrees not yet searched for shadow roots, searched together in idle time. */
  private readonly shadowSearch: IdleBatch;
  private readonly skipTag = (el: Element): boolean => this.ownTags.has(el.tagName);
  private readonly backlog: Backlog[] = [];
  private sliceTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly doc: Document,
    private readonly hooks: FieldWatcherHooks,
    options: FieldWatcherOptions = {},
  ) {
    this.debounceMs = options.debounceMs ?? 400;
    this.pollMs = options.pollMs ?? 1000;
    this.ownTags = ownTagSet(options.ownTag);
    this.observer = new ShadowFollowingObserver(doc, { childList: true, subtree: true }, this.onMutations);
    this.shadowSearch = new IdleBatch(doc, SHADOW_SEARCH_WAIT_MS, (nodes) => {
      for (const node of nodes) if (node.isConnected) this.searchShadowRoots(node);
    });
  }

  get running(): boolean {
    return this.observer.running;
  }

  start(): void {
    if (this.observer.running) return;
    this.observer.start();
    this.doc.addEventListener('input', this.onInput, true);
    this.doc.addEventListener('change', this.onChange, true);
    this.doc.addEventListener('focusin', this.onFocusIn, true);
    this.scan(this.doc.documentElement, new LabelIndex(this.doc), this.doc);
    this.shadowSearch.add(this.doc.documentElement);
  }

  stop(): void {
    this.observer.stop();
    this.shadowSearch.clear();
    this.backlog.length = 0;
    if (this.sliceTimer !== null) clearTimeout(this.sliceTimer);
    this.sliceTimer = null;
    this.doc.removeEventListener('input', this.onInput, true);
    this.doc.removeEventListener('change', this.onChange, true);
    this.doc.removeEventListener('focusin', this.onFocusIn, true);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.stopPolling();
    for (const field of [...this.fields]) this.forget(field);
  }

  /**
   * Looks for postcode fields in `root` and below (not inside shadow roots: see searchShadowRoots). `tree` is the
   * document or shadow root `root` is in, when known.
   */
  scan(
    root: Element | ShadowRoot | null,
    labels: LabelIndex = new LabelIndex(this.doc),
    tree?: Document | ShadowRoot,
  ): void {
    if (!root) return;
    if (root.nodeType === 1) {
      const el = root as Element;
      if (this.ownTags.has(el.tagName)) return;
      if (el.tagName === 'INPUT') {
        this.consider(el, labels, tree);
        return;
      }
      if (!el.firstElementChild) return;
      const inputs = el.getElementsByTagName('input');
      if (inputs.length === 0) return;
      this.considerAll(inputs, labels, tree ?? treeOf(el, this.doc));
      return;
    }
    // A shadow root has querySelectorAll but no getElementsByTagName.
    this.considerAll(root.querySelectorAll('input'), labels, root as ShadowRoot);
  }

  /** Looks at a few inputs now, and at the rest in slices (see SLICE_INPUTS). */
  private considerAll(inputs: ArrayLike<Element>, labels: LabelIndex, tree?: Document | ShadowRoot): void {
    if (this.backlog.length === 0 && inputs.length <= SLICE_INPUTS) {
      for (let i = 0; i < inputs.length; i++) this.consider(inputs[i]!, labels, tree);
      return;
    }
    this.backlog.push({ inputs: Array.from(inputs), next: 0, labels, tree });
    // The first slice now; a slice already due takes the rest in turn.
    if (this.sliceTimer === null) this.runSlice();
  }

  private readonly runSlice = (): void => {
    this.sliceTimer = null;
    const deadline = performance.now() + SLICE_MS;
    while (this.backlog.length > 0 && performance.now() < deadline) {
      const batch = this.backlog[0]!;
      const end = Math.min(batch.inputs.length, batch.next + 20);
      for (; batch.next < end; batch.next++) {
        const input = batch.inputs[batch.next]!;
        if (input.isConnected) this.consider(input, batch.labels, batch.tree);
      }
      if (batch.next >= batch.inputs.length) this.backlog.shift();
    }
    if (this.backlog.length > 0) this.sliceTimer = setTimeout(this.runSlice, 0);
  };

  /**
   * Searches `root` and below for open shadow roots now, observing and scanning each one found (and the shadow roots
   * inside those). Normally done in idle time for what was added; exposed for tests and for callers that cannot wait.
   */
  searchShadowRoots(root: Node): void {
    if (!this.observer.running) return;
    const found: ShadowRoot[] = [];
    const visit = (el: Element) => {
      const shadow = el.shadowRoot;
      if (shadow && !this.observer.follows(shadow) && !this.ownTags.has(el.tagName)) found.push(shadow);
    };
    if (root.nodeType === 1) {
      const el = root as Element;
      if (this.ownTags.has(el.tagName)) return;
      visit(el);
    }
    // A TreeWalker is as cheap as getElementsByTagName('*') on a large page (querySelectorAll('*') is several times
    // dearer), and walks a shadow root too.
    if (root.nodeType === 1 || root.nodeType === 9 || root.nodeType === 11) {
      const walker = this.doc.createTreeWalker(root, SHOW_ELEMENT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) visit(node as Element);
    }
    for (const shadow of found) this.adoptShadowRoot(shadow);
  }

  /** Observes an open shadow root and scans it, with the shadow roots inside it. */
  private adoptShadowRoot(shadow: ShadowRoot): void {
    if (!this.observer.adopt(shadow)) return;
    this.scan(shadow);
    this.searchShadowRoots(shadow);
  }

  private consider(el: Element, labels: LabelIndex, tree?: Document | ShadowRoot): void {
    const input = el as HTMLInputElement;
    if (this.fields.has(input) || !isPostcodeField(input, labels, { skipTag: this.skipTag, tree })) return;
    if (this.ownTags.size > 0 && this.insideOwn(input)) return;
    this.fields.add(input);
    this.evaluate(input);
    this.startPolling();
  }

  private insideOwn(el: Element): boolean {
    for (const tag of this.ownTags) if (el.closest(tag)) return true;
    const root = el.getRootNode() as ShadowRoot;
    return root.nodeType === 11 && !!root.host && this.ownTags.has(root.host.tagName);
  }
  private forget(field: HTMLInputElement): void {
    if (!this.fields.delete(field)) return;
    this.cancelDebounce(field);
    this.lastValue.delete(field);
    this.hooks.onFieldGone(field);
    if (this.fields.size === 0) this.stopPolling();
  }

  private cancelDebounce(field: HTMLInputElement): void {
    const timer = this.timers.get(field);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(field);
  }

  /** Reads a field now and reports its value if it changed. */
  evaluate(field: HTMLInputElement): void {
    const postcode = completePostcode(field.value ?? '');
    const announced = this.announced.delete(field);
    if (!announced && this.lastValue.has(field) && this.lastValue.get(field) === postcode) return;
    this.lastValue.set(field, postcode);
    this.hooks.onPostcode(field, postcode);
  }

  private readonly onMutations = (records: MutationRecord[]): void => {
    let removed = false;
    // One label index for the whole batch: built only if some new input needs its labels read.
    const labels = new LabelIndex(this.doc);
    for (const record of records) {
      const added = record.addedNodes;
      // The tree the record happened in (the document, or a shadow root), looked up once for all it added.
      let tree: Document | ShadowRoot | undefined;
      // A new element may be (or hold) a web component with an open shadow root: searched in idle time, the parent
      // once for a record that added many nodes (an innerHTML), else each element.
      const many = added.length > MANY_ADDED;
      if (many) this.shadowSearch.add(record.target);
      for (let i = 0; i < added.length; i++) {
        const node = added[i]!;
        if (node.nodeType !== 1) continue;
        const el = node as Element;
        if (el.tagName === 'INPUT' || el.firstElementChild) {
          tree ??= treeOf(record.target, this.doc);
          this.scan(el, labels, tree);
        }
        if (!many) this.shadowSearch.add(node);
      }
      if (record.removedNodes.length > 0) removed = true;
    }
    if (!removed) return;
    for (const field of this.fields) if (!field.isConnected) this.forget(field);
    this.hooks.onNodesRemoved?.();
  };

  private readonly onInput = (event: Event): void => {
    const field = eventField(event);
    if (!field || !this.fields.has(field)) return;
    this.cancelDebounce(field);
    // A field that no longer holds a postcode (cleared, or a digit taken away) loses its badge at once; another
    // postcode shows as pending at once, and is checked once typing pauses. Either way no answer stays beside a
    // value it is not for.
    const postcode = completePostcode(field.value ?? '');
    if (postcode === null) {
      this.evaluate(field);
      return;
    }
    const last = this.lastValue.get(field);
    if (last && last !== postcode) {
      this.announced.add(field);
      this.hooks.onPending?.(field, postcode);
    }
    this.timers.set(
      field,
      setTimeout(() => {
        this.timers.delete(field);
        if (this.fields.has(field)) this.evaluate(field);
      }, this.debounceMs),
    );
  };

  private readonly onChange = (event: Event): void => {
    const field = eventField(event);
    if (!field || !this.fields.has(field)) return;
    this.cancelDebounce(field);
    this.evaluate(field);
  };

  /**
   * A field whose label or attributes were changed by script after it was first seen, or which is drawn only now,
   * is picked up on focus; so is one in a shadow root the watcher had not seen (a component upgraded after the page
   * loaded), whose shadow roots are then observed.
   */
  private readonly onFocusIn = (event: Event): void => {
    const el = eventField(event);
    if (!el || this.fields.has(el) || !isTextLikeInput(el)) return;
    let root = el.getRootNode() as Document | ShadowRoot;
    while (root.nodeType === 11 && (root as ShadowRoot).host) {
      const shadow = root as ShadowRoot;
      if (this.ownTags.has(shadow.host.tagName)) return;
      this.adoptShadowRoot(shadow);
      root = shadow.host.getRootNode() as Document | ShadowRoot;
    }
    this.consider(el, new LabelIndex(this.doc));
  };

  private startPolling(): void {
    if (this.pollTimer !== null || this.pollMs <= 0) return;
    this.pollTimer = setInterval(() => {
      if (this.doc.visibilityState === 'hidden') return;
      for (const field of this.fields) {
        // A field being typed in is left to its debounce.
        if (!this.timers.has(field)) this.evaluate(field);
      }
    }, this.pollMs);
  }

  private stopPolling(): void {
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }
}

/**
 * The element an event happened on. At the document, an event from inside an open shadow root is retargeted to the
 * shadow host: then the first node of its composed path is the input. The path is built only for such events.
 */
function eventField(event: Event): HTMLInputElement | null {
  const target = event.target as Element | null;
  if (!target || target.nodeType !== 1) return null;
  if (!target.shadowRoot) return target as HTMLInputElement;
  const inner = event.composedPath()[0] as Element | undefined;
  return inner && inner.nodeType === 1 ? (inner as HTMLInputElement) : null;
}
