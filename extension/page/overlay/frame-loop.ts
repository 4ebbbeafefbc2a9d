/** What the frame loop follows for a badge or a panel: the element it observes, and whether that is in view. */
export interface Tracked {
  readonly el: Element;
  /** Intersection with the viewport and the clipping ancestors, from the IntersectionObserver (undefined: not yet known). */
  intersecting?: boolean;
}

export interface FrameLoopHooks {
  /** One frame's work: reads first, writes last. */
  frame(): void;
  /** The overlay was destroyed: no more frames, no more listening. */
  destroyed(): boolean;
  /** The overlay's host, if it is in the page. */
  host(): Element | null;
  /** Whether a page scroll moves anything of the overlay against the page (as of the last frame). */
  followsPage(): boolean;
  /** A key pressed in the page (the badges' place in the Tab order). */
  onKey(event: KeyboardEvent): void;
  /** A press anywhere in the page (closes panels it is outside of). */
  onPointerDown(event: Event): void;
}

const WATCHED_ATTRIBUTES = [
  'style',
  'class',
  'hidden',
  'open',
  'width',
  'height',
  'size',
  'dir',
  'aria-hidden',
  'inert',
];

/**
 * One tracker follows every anchor: a ResizeObserver (the anchors and the root element), an IntersectionObserver (an
 * anchor out of view is not measured at all, unless a container's clip box has it), a capture-phase scroll listener
 * (scrolling containers; a page scroll only for clip boxes, fixed or sticky fields and open panels), window resizes,
 * transition and font-load ends, and a MutationObserver that only marks layout as changed. Each of them only asks
 * for a frame; all the work happens in one requestAnimationFrame callback, reads first and writes last, and a write
 * only where something moved. No timers, no polling. It listens only while it tracks something.
 */
export class FrameLoop {
  /** Badges and panels per observed element (several may share one element, e.g. text in one paragraph). */
  private readonly byElement = new Map<Element, Set<Tracked>>();
  private frameId = 0;
  private layoutChanged = true;
  private listening = false;
  private resizeObserver: ResizeObserver | null = null;
  private intersectionObserver: IntersectionObserver | null = null;
  private mutationObserver: MutationObserver | null = null;

  constructor(
    private readonly doc: Document,
    private readonly hooks: FrameLoopHooks,
  ) {}

  track(item: Tracked): void {
    let set = this.byElement.get(item.el);
    if (!set) {
      set = new Set();
      this.byElement.set(item.el, set);
      this.listen();
      this.resizeObserver?.observe(item.el);
      this.intersectionObserver?.observe(item.el);
    } else {
      // The observer has spoken for this element already and says nothing more until its intersection changes.
      for (const other of set) item.intersecting ??= other.intersecting;
    }
    set.add(item);
  }

  untrack(item: Tracked): void {
    const set = this.byElement.get(item.el);
    if (!set) return;
    set.delete(item);
    if (set.size > 0) return;
    this.byElement.delete(item.el);
    this.resizeObserver?.unobserve(item.el);
    this.intersectionObserver?.unobserve(item.el);
    if (this.byElement.size === 0) this.unlisten();
  }

  listen(): void {
    if (this.listening || this.hooks.destroyed()) return;
    const view = this.doc.defaultView;
    if (!view) return;
    this.listening = true;
    this.layoutChanged = true;
    this.resizeObserver = new view.ResizeObserver(this.onLayout);
    this.resizeObserver.observe(this.doc.documentElement);
    // Half way in: a field's middle is in view, where what lies beside it can be hit-tested.
    this.intersectionObserver = new view.IntersectionObserver(this.onIntersection, { threshold: [0, 0.5, 1] });
    this.mutationObserver = new view.MutationObserver(this.onMutations);
    this.mutationObserver.observe(this.doc, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: WATCHED_ATTRIBUTES,
    });
    for (const el of this.byElement.keys()) {
      this.resizeObserver.observe(el);
      this.intersectionObserver.observe(el);
    }
    view.addEventListener('scroll', this.onScroll, { capture: true, passive: true });
    view.addEventListener('resize', this.onLayout, { passive: true });
    this.doc.addEventListener('transitionend', this.onLayout, true);
    this.doc.addEventListener('animationend', this.onLayout, true);
    this.doc.addEventListener('input', this.onInput, true);
    this.doc.addEventListener('keydown', this.hooks.onKey);
    this.doc.addEventListener('pointerdown', this.hooks.onPointerDown, true);
    this.doc.fonts?.addEventListener('loadingdone', this.onLayout);
  }

  unlisten(): void {
    if (!this.listening) return;
    this.listening = false;
    const view = this.doc.defaultView;
    this.resizeObserver?.disconnect();
    this.intersectionObserver?.disconnect();
    this.mutationObserver?.disconnect();
    this.resizeObserver = this.intersectionObserver = this.mutationObserver = null;
    view?.removeEventListener('scroll', this.onScroll, { capture: true });
    view?.removeEventListener('resize', this.onLayout);
    this.doc.removeEventListener('transitionend', this.onLayout, true);
    this.doc.removeEventListener('animationend', this.onLayout, true);
    this.doc.removeEventListener('input', this.onInput, true);
    this.doc.removeEventListener('keydown', this.hooks.onKey);
    this.doc.removeEventListener('pointerdown', this.hooks.onPointerDown, true);
    this.doc.fonts?.removeEventListener('loadingdone', this.onLayout);
    if (this.frameId) view?.cancelAnimationFrame(this.frameId);
    this.frameId = 0;
  }

  /** Asks for a frame (one at a time). */
  schedule(): void {
    if (this.frameId || this.hooks.destroyed()) return;
    const view = this.doc.defaultView;
    if (view) this.frameId = view.requestAnimationFrame(this.run);
  }

  /** The next frame reads layout again, as if something had changed it. */
  markLayoutChanged(): void {
    this.layoutChanged = true;
  }

  /** Whether layout changed since the last call. */
  takeLayoutChanged(): boolean {
    const changed = this.layoutChanged;
    this.layoutChanged = false;
    return changed;
  }

  private readonly run = (): void => {
    this.frameId = 0;
    this.hooks.frame();
  };

  private readonly onLayout = (): void => {
    this.layoutChanged = true;
    this.schedule();
  };

  /**
   * Any change to the page may move a field: the next frame reads layout again. A modal library that hides every
   * other child of the body from assistive technology (`aria-hidden`, `inert`: Material UI's Modal does) would hide
   * the badges of the fields inside its own dialog with them; those attributes are taken off the overlay's host.
   */
  private readonly onMutations = (records: MutationRecord[]): void => {
    const host = this.hooks.host();
    for (const record of records) {
      if (record.target === host && (record.attributeName === 'aria-hidden' || record.attributeName === 'inert')) {
        host.removeAttribute(record.attributeName);
      }
    }
    this.onLayout();
  };

  /**
   * A scrolling container moves its fields against the page: badges follow. A page scroll moves nothing against the
   * page except fixed or sticky fields and open panels (kept in view); everything else scrolls along by itself.
   */
  private readonly onScroll = (event: Event): void => {
    const target = event.target;
    const doc = this.doc;
    if (target === doc || target === doc.documentElement || target === doc.scrollingElement) {
      if (!this.hooks.followsPage()) return;
    }
    this.schedule();
  };

  private readonly onIntersection = (records: IntersectionObserverEntry[]): void => {
    for (const record of records) {
      const items = this.byElement.get(record.target);
      if (!items) continue;
      // Only whether it is worth measuring: what lies beside it was read when it was last in view, and is read
      // again after any layout change (see `stale`).
      for (const item of items) item.intersecting = record.isIntersecting;
    }
    this.schedule();
  };

  /** Typing changes how far a field's text reaches (a badge inside its right end may have to move). */
  private readonly onInput = (event: Event): void => {
    const target = event.target as Element | null;
    if (target && this.byElement.has(target)) this.schedule();
  };
}
