import { completePostcode } from '../common/postcode';
import { isPostcodeField, isTextLikeInput, LabelIndex } from './field-detection';

export interface FieldWatcherHooks {
  /**
   * A postcode field's complete value changed: a 4-digit postcode, or `null` once it no longer holds one.
   * Called once per change, after typing pauses.
   */
  onPostcode(field: HTMLInputElement, postcode: string | null): void;
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
  /** Tag name of the extension's own badge hosts, which the watcher never looks into. */
  ownTag?: string;
}

/**
 * Finds postcode fields in one document and reports their complete values. One MutationObserver (child lists only)
 * sees fields added later; typing is caught by one delegated listener at the document, not one per field. Nothing
 * is done per element of the page except for inputs, so the cost of a mutation is the cost of finding the inputs
 * inside what was added.
 */
export class FieldWatcher {
  readonly fields = new Set<HTMLInputElement>();
  private readonly lastValue = new WeakMap<HTMLInputElement, string | null>();
  private readonly timers = new Map<HTMLInputElement, ReturnType<typeof setTimeout>>();
  private observer: MutationObserver | null = null;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private readonly debounceMs: number;
  private readonly pollMs: number;
  private readonly ownTag: string | null;

  constructor(
    private readonly doc: Document,
    private readonly hooks: FieldWatcherHooks,
    options: FieldWatcherOptions = {},
  ) {
    this.debounceMs = options.debounceMs ?? 400;
    this.pollMs = options.pollMs ?? 1000;
    this.ownTag = options.ownTag?.toUpperCase() ?? null;
  }

  get running(): boolean {
    return this.observer !== null;
  }

  start(): void {
    if (this.observer) return;
    const view = this.doc.defaultView;
    const Observer = view?.MutationObserver ?? globalThis.MutationObserver;
    this.observer = new Observer(this.onMutations);
    this.observer.observe(this.doc, { childList: true, subtree: true });
    this.doc.addEventListener('input', this.onInput, true);
    this.doc.addEventListener('change', this.onChange, true);
    this.doc.addEventListener('focusin', this.onFocusIn, true);
    this.scan(this.doc.documentElement);
  }

  stop(): void {
    this.observer?.disconnect();
    this.observer = null;
    this.doc.removeEventListener('input', this.onInput, true);
    this.doc.removeEventListener('change', this.onChange, true);
    this.doc.removeEventListener('focusin', this.onFocusIn, true);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.stopPolling();
    for (const field of [...this.fields]) this.forget(field);
  }

  /** Looks for postcode fields in `root` and below. */
  scan(root: Element | null, labels: LabelIndex = new LabelIndex(this.doc)): void {
    if (!root || root.tagName === this.ownTag) return;
    if (root.tagName === 'INPUT') {
      this.consider(root, labels);
      return;
    }
    if (!root.firstElementChild) return;
    const inputs = root.getElementsByTagName('input');
    for (let i = 0; i < inputs.length; i++) this.consider(inputs[i]!, labels);
  }

  private consider(el: Element, labels: LabelIndex): void {
    const input = el as HTMLInputElement;
    if (this.fields.has(input) || !isPostcodeField(input, labels)) return;
    if (this.ownTag && input.closest(this.ownTag)) return;
    this.fields.add(input);
    this.evaluate(input);
    this.startPolling();
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
    if (this.lastValue.has(field) && this.lastValue.get(field) === postcode) return;
    this.lastValue.set(field, postcode);
    this.hooks.onPostcode(field, postcode);
  }

  private readonly onMutations = (records: MutationRecord[]): void => {
    let removed = false;
    // One label index for the whole batch: built only if some new input needs its labels read.
    const labels = new LabelIndex(this.doc);
    for (const record of records) {
      const added = record.addedNodes;
      for (let i = 0; i < added.length; i++) {
        const node = added[i]!;
        if (node.nodeType === 1) this.scan(node as Element, labels);
      }
      if (record.removedNodes.length > 0) removed = true;
    }
    if (!removed) return;
    for (const field of this.fields) if (!field.isConnected) this.forget(field);
    this.hooks.onNodesRemoved?.();
  };

  private readonly onInput = (event: Event): void => {
    const field = event.target as HTMLInputElement | null;
    if (!field || !this.fields.has(field)) return;
    this.cancelDebounce(field);
    // Clearing the field removes the badge at once; a value waits until typing pauses.
    if (!field.value) {
      this.evaluate(field);
      return;
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
    const field = event.target as HTMLInputElement | null;
    if (!field || !this.fields.has(field)) return;
    this.cancelDebounce(field);
    this.evaluate(field);
  };

  /** A field whose label or attributes were changed by script after it was first seen is picked up on focus. */
  private readonly onFocusIn = (event: Event): void => {
    const el = event.target as Element | null;
    if (el && el.nodeType === 1 && !this.fields.has(el as HTMLInputElement) && isTextLikeInput(el)) {
      this.consider(el, new LabelIndex(this.doc));
    }
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
