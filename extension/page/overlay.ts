import type { ContentScriptContext } from 'wxt/utils/content-script-context';
import { createShadowRootUi, type ShadowRootContentScriptUi } from 'wxt/utils/content-script-ui/shadow-root';
import { copyText } from '../common/clipboard';
import { h } from '../common/dom';
import type { CheckOutcome } from '../common/outcome';
import { BADGE_CSS } from './badge-styles';
import { InlineBadge } from './inline-badge';
import {
  anchorConnected,
  anchorElement,
  anchorRect,
  clipChain,
  clipRect,
  fieldText,
  intersect,
  isCovered,
  isEmpty,
  isRange,
  placeBadge,
  placePanel,
  readFieldStyle,
  roomAround,
  textWidth,
  viewportBox,
  type Anchor,
  type Box,
  type Clipper,
  type FieldStyle,
  type Mode,
  type Placement,
  type Room,
  type Size,
} from './overlay-geometry';
import { ResultPanel, type PanelContent } from './result-panel';

export type { Anchor } from './overlay-geometry';
export type { PanelContent, PanelNotice } from './result-panel';

/** Tag of the overlay's one host element per document (the field watcher never looks inside it). */
export const OVERLAY_HOST_TAG = 'dte-overlay';

export interface OverlayOptions {
  /** The "Open options" button of setup problems. */
  openOptions?(): void;
}

export interface BadgeOptions {
  /** The badge was activated (click, Enter, Space), before its panel opens or closes. */
  onActivate?(badge: BadgeHandle): void;
  /** "Try again" in the panel, and the end of a rate-limit countdown. */
  retry?(): void;
  /** The anchor left the document (a field removed, a text node replaced): the badge hides; remove it if done. */
  onGone?(badge: BadgeHandle): void;
}

/** One badge of the overlay. It shows nothing until `show` is first called. */
export interface BadgeHandle {
  readonly anchor: Anchor;
  /** The badge's button, inside the overlay's shadow root. */
  readonly element: HTMLButtonElement;
  readonly isOpen: boolean;
  show(outcome: CheckOutcome | { pending: string }): void;
  open(): void;
  close(): void;
  remove(): void;
}

/** A panel opened on its own at a piece of text (the context menu's answer). */
export interface PanelHandle {
  readonly element: HTMLElement;
  readonly isOpen: boolean;
  show(content: PanelContent): void;
  close(): void;
}

/** What the tracker keeps per badge between frames. */
interface Entry {
  anchor: Anchor;
  el: Element;
  view: InlineBadge;
  wrapper: HTMLElement;
  options: BadgeOptions;
  handle: BadgeHandle;
  shown: boolean;
  /** Intersection with the viewport and the clipping ancestors, from the IntersectionObserver (undefined: not yet known). */
  intersecting?: boolean;
  /** Clip chain, field style, room and cover need reading again: layout changed since they were read. */
  stale: boolean;
  chain: Clipper[];
  pinned: boolean;
  /** The field is not rendered visibly (visibility: hidden, content-visibility); read with the clip chain. */
  invisible: boolean;
  /** Lives in the layer's fixed box (see `settle`), inside `clipBox` when a container clips its field. */
  fixed: boolean;
  clipBox: ClipBox | null;
  /** Its field is wholly out of its container's view: the clip box hides the badge, which keeps following. */
  clippedOut: boolean;
  /** Where it was last placed, relative to its field: kept while the field is partly scrolled out of its container. */
  last: { dx: number; dy: number; mode: Placement['mode']; where: Placement['where'] } | null;
  style?: FieldStyle;
  /**
   * Free width right of the anchor, from hit tests: read when the anchor's middle is first in view and after layout
   * changes (a scroll does not change what lies beside a field).
   */
  room: Room;
  roomStale: boolean;
  /** Something of the page lies over the anchor (a modal's backdrop): its badge hides. Read with `room`. */
  covered: boolean;
  sizes?: Record<Mode, Size>;
  sizeStale: boolean;
  /** The words the sizes were measured for. */
  words: string;
  placed: Placement | null;
  transform: string;
  /** The badge's data attributes as last written (see `set`). */
  state: string;
  mode: string;
  where: string;
  /** The typed text's width, for the value and font it was measured in. */
  typed: { value: string; font: string; width: number } | null;
  gone: boolean;
}

interface FloatingPanel {
  anchor: Anchor;
  el: Element;
  view: ResultPanel;
  chain: Clipper[];
  stale: boolean;
  intersecting?: boolean;
  returnFocus: Element | null;
  /** Focus goes into the panel once it is placed (a hidden element cannot take focus). */
  focusWhenPlaced: boolean;
  handle: PanelHandle;
}

/**
 * A box in the layer's fixed box over the visible part of a scrolling (or clipping) container: the badges of the
 * container's fields live inside it, so what of them lies outside the container is cut off exactly as the page cuts
 * off the fields, and following the container's scroll moves them with a transform only (no hiding and showing).
 */
interface ClipBox {
  key: Element;
  chain: Clipper[];
  el: HTMLDivElement;
  users: Set<Entry>;
  box: Box | null;
  transform: string;
  size: string;
}

/** Where a badge goes this frame; `clippedOut`: its field is out of its container's view (the clip box hides it). */
type Plan = (Placement & { clippedOut?: boolean }) | null;

const TABBABLE =
  'a[href], area[href], button, input, select, textarea, iframe, summary, [tabindex], [contenteditable], audio[controls], video[controls]';

/**
 * The extension's one layer over a document: every badge and panel of the document lives in one open shadow root
 * under one host at the end of `<body>`, absolutely positioned from its anchor's box. The page's own boxes never
 * change: nothing is inserted among them, and the host takes no room (absolutely positioned, zero size, no pointer
 * events, style-isolated). Inside, badges of fields that only move with the page are in the page's coordinates (a
 * page scroll carries them, untouched); badges of fields in scrolling or clipping containers are in a fixed box, each
 * container's inside a clip box over the container, and follow the container's scroll by transform alone; fixed or
 * sticky fields' badges are in the fixed box too. Panels are in the page's coordinates, never cut off.
 *
 * One tracker follows every anchor: a ResizeObserver (the anchors and the root element), an IntersectionObserver (an
 * anchor out of view is not measured at all, unless a container's clip box has it), a capture-phase scroll listener
 * (scrolling containers; a page scroll only for clip boxes, fixed or sticky fields and open panels), window resizes,
 * transition and font-load ends, and a MutationObserver that only marks layout as changed. Each of them only asks
 * for a frame; all the work happens in one requestAnimationFrame callback, reads first and writes last, and a write
 * only where something moved. No timers, no polling.
 */
export class Overlay {
  private readonly entries = new Set<Entry>();
  private readonly panels = new Set<FloatingPanel>();
  /** Entries and panels per observed element (several badges may share one element, e.g. text in one paragraph). */
  private readonly byElement = new Map<Element, Set<Entry | FloatingPanel>>();
  private readonly clips = new Map<Element, ClipBox>();
  private ui: Promise<ShadowRootContentScriptUi<HTMLElement>> | null = null;
  private host: HTMLElement | null = null;
  private root: HTMLElement | null = null;
  /** Inside the layer, a box fixed over the viewport for badges of fields that move against the page. */
  private fixedLayer: HTMLElement | null = null;
  private destroyed = false;
  private frame = 0;
  private layoutChanged = true;
  private listening = false;
  private resizeObserver: ResizeObserver | null = null;
  private intersectionObserver: IntersectionObserver | null = null;
  private mutationObserver: MutationObserver | null = null;
  private moves: number[] = [];
  /** Some shown badge is pinned (fixed or sticky) or has its panel open: a page scroll moves it (set each frame). */
  private followPage = false;

  constructor(
    private readonly ctx: ContentScriptContext,
    private readonly doc: Document,
    private readonly options: OverlayOptions = {},
  ) {
    ctx.onInvalidated(() => this.destroy());
  }

  /** A badge beside `anchor`: a field (right of it, or inside its empty right end, or below) or a range of text. */
  add(anchor: Anchor, options: BadgeOptions = {}): BadgeHandle {
    if (this.destroyed) throw new Error('The overlay was destroyed');
    const wrapper = h(this.doc, 'div', { class: 'dte-item' });
    const entry = {
      anchor,
      el: anchorElement(anchor) ?? this.doc.documentElement,
      wrapper,
      options,
      shown: false,
      stale: true,
      chain: [],
      pinned: false,
      invisible: false,
      fixed: false,
      clipBox: null,
      clippedOut: false,
      last: null,
      room: { right: Infinity, below: Infinity, above: Infinity },
      roomStale: true,
      covered: false,
      sizeStale: true,
      words: '',
      placed: null,
      transform: '',
      state: 'off',
      mode: 'full',
      where: '',
      typed: null,
      gone: false,
    } as Partial<Entry> as Entry;
    entry.view = new InlineBadge(wrapper, {
      copy: (text) => copyText(text, wrapper),
      openOptions: this.options.openOptions,
      retry: () => options.retry?.(),
      onActivate: () => options.onActivate?.(entry.handle),
      onChange: () => {
        // Only new words change the badge's size (focus and the panel opening only move things).
        const words = `${entry.view.button.dataset.tone}|${entry.view.button.textContent}`;
        if (words !== entry.words) {
          entry.words = words;
          entry.sizeStale = true;
        }
        this.schedule();
      },
    });
    const button = entry.view.button;
    button.dataset.state = 'off';
    button.dataset.anchor = isRange(anchor) ? 'text' : 'field';
    if (!isRange(anchor)) {
      // Lets a test or a person tell which field a badge belongs to; the page's own ids, nothing more.
      if (anchor.id) button.dataset.fieldId = anchor.id;
      if (anchor.name) button.dataset.fieldName = anchor.name;
    }
    button.addEventListener('keydown', (event) => this.onBadgeKey(entry, event));
    entry.handle = {
      anchor,
      element: button,
      get isOpen() {
        return entry.view.isOpen;
      },
      show: (outcome) => {
        if (!this.entries.has(entry)) return;
        entry.shown = true;
        entry.view.show(outcome);
        this.schedule();
      },
      open: () => {
        if (entry.placed) entry.view.open();
      },
      close: () => entry.view.close(),
      remove: () => this.removeEntry(entry),
    };
    this.entries.add(entry);
    this.track(entry);
    this.mountInLayer(wrapper);
    // Panels live in the page's layer whatever box their badge is in, so no container cuts them off.
    this.mountInLayer(entry.view.panel);
    return entry.handle;
  }

  /**
   * A panel on its own at `anchor` (the answer to the context menu's "Check disaster eligibility" on selected
   * text): open at once with focus in it, following the text as the page scrolls, gone when closed.
   */
  openPanelAt(anchor: Anchor, content: PanelContent): PanelHandle {
    if (this.destroyed) throw new Error('The overlay was destroyed');
    const active = this.doc.activeElement;
    const panel = {
      anchor,
      el: anchorElement(anchor) ?? this.doc.documentElement,
      chain: [],
      stale: true,
      returnFocus: active && active !== this.doc.body ? active : null,
      focusWhenPlaced: true,
    } as Partial<FloatingPanel> as FloatingPanel;
    panel.view = new ResultPanel(this.doc, {
      copy: (text) => copyText(text, panel.view.element),
      openOptions: this.options.openOptions,
      onClose: (returnFocus) => this.closePanel(panel, returnFocus),
    });
    panel.handle = {
      element: panel.view.element,
      get isOpen() {
        return panel.view.isOpen;
      },
      show: (next) => panel.view.show(next),
      close: () => this.closePanel(panel, false),
    };
    panel.view.show(content);
    // Placed before it shows, so it never flashes at the corner.
    panel.view.element.style.visibility = 'hidden';
    this.panels.add(panel);
    this.track(panel);
    this.mountInLayer(panel.view.element);
    const open = () => {
      if (this.panels.has(panel)) panel.view.open();
    };
    if (this.root) open();
    else void this.ensureLayer().then(open);
    return panel.handle;
  }

  /**
   * Removes every badge and panel and the layer itself; listeners and observers go with them. The overlay can be
   * used again (a site switched back on); the next badge makes a new layer.
   */
  clear(): void {
    for (const entry of [...this.entries]) this.removeEntry(entry);
    for (const panel of [...this.panels]) this.closePanel(panel, false);
    this.unlisten();
    void this.ui?.then((ui) => ui.remove());
    this.ui = null;
    this.host = null;
    this.root = null;
    this.fixedLayer = null;
    this.clips.clear();
  }

  /** Clears the overlay for good (the extension context went away). */
  destroy(): void {
    this.destroyed = true;
    this.clear();
  }

  // ------------------------------------------------------------------------------------------------------------
  // Layer

  private ensureLayer(): Promise<ShadowRootContentScriptUi<HTMLElement>> {
    if (this.ui) return this.ui;
    const doc = this.doc;
    const pending: Promise<ShadowRootContentScriptUi<HTMLElement>> = createShadowRootUi<HTMLElement>(this.ctx, {
      name: OVERLAY_HOST_TAG,
      position: 'inline',
      anchor: () => doc.body ?? doc.documentElement,
      append: 'last',
      mode: 'open',
      css: BADGE_CSS,
      onMount: (container) => container,
    }).then((ui) => {
      if (this.destroyed || this.ui !== pending) {
        ui.remove();
        return ui;
      }
      ui.mount();
      this.host = ui.shadowHost;
      this.root = ui.uiContainer;
      this.fixedLayer = h(this.doc, 'div', { class: 'dte-fixed' });
      this.root.append(this.fixedLayer);
      for (const entry of this.entries) this.root.append(entry.wrapper, entry.view.panel);
      for (const panel of this.panels) this.root.append(panel.view.element);
      this.schedule();
      return ui;
    });
    this.ui = pending;
    return pending;
  }

  private mountInLayer(node: HTMLElement): void {
    if (this.root) this.root.append(node);
    else void this.ensureLayer();
    this.listen();
    this.schedule();
  }

  /**
   * The host stays the body's last element, above whatever the page appends later (with `moveBefore`, which keeps
   * focus inside it, where the browser has it). A page that keeps moving its own element last wins after a few
   * tries a second, rather than the two of us trading places every frame.
   */
  private keepLayerLast(): void {
    const host = this.host;
    if (!host) return;
    const parent = this.doc.body ?? this.doc.documentElement;
    if (host.parentNode === parent && parent.lastElementChild === host) return;
    const now = performance.now();
    this.moves = this.moves.filter((t) => now - t < 1000);
    if (host.isConnected && host.parentNode === parent && this.moves.length >= 5) return;
    this.moves.push(now);
    const move = (parent as unknown as { moveBefore?(node: Node, child: Node | null): void }).moveBefore;
    if (move && host.parentNode === parent) {
      try {
        move.call(parent, host, null);
        return;
      } catch {
        // Not movable atomically here: append below.
      }
    }
    parent.append(host);
  }

  // ------------------------------------------------------------------------------------------------------------
  // Tracking

  private track(item: Entry | FloatingPanel): void {
    let set = this.byElement.get(item.el);
    if (!set) {
      set = new Set();
      this.byElement.set(item.el, set);
      this.listen();
      this.resizeObserver?.observe(item.el);
      this.intersectionObserver?.observe(item.el);
    }
    set.add(item);
  }

  private untrack(item: Entry | FloatingPanel): void {
    const set = this.byElement.get(item.el);
    if (!set) return;
    set.delete(item);
    if (set.size > 0) return;
    this.byElement.delete(item.el);
    this.resizeObserver?.unobserve(item.el);
    this.intersectionObserver?.unobserve(item.el);
    if (this.byElement.size === 0) this.unlisten();
  }

  private listen(): void {
    if (this.listening || this.destroyed) return;
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
      attributeFilter: ['style', 'class', 'hidden', 'open', 'width', 'height', 'size', 'dir', 'aria-hidden', 'inert'],
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
    this.doc.addEventListener('keydown', this.onPageKey);
    this.doc.addEventListener('pointerdown', this.onPointerDown, true);
    this.doc.fonts?.addEventListener('loadingdone', this.onLayout);
  }

  private unlisten(): void {
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
    this.doc.removeEventListener('keydown', this.onPageKey);
    this.doc.removeEventListener('pointerdown', this.onPointerDown, true);
    this.doc.fonts?.removeEventListener('loadingdone', this.onLayout);
    if (this.frame) view?.cancelAnimationFrame(this.frame);
    this.frame = 0;
  }

  private schedule(): void {
    if (this.frame || this.destroyed) return;
    const view = this.doc.defaultView;
    if (view) this.frame = view.requestAnimationFrame(this.flush);
  }

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
    const host = this.host;
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
      if (!this.followPage && this.panels.size === 0) return;
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

  private readonly flush = (): void => {
    this.frame = 0;
    if (!this.host || !this.root) return;
    if (!this.host.isConnected || this.host.parentNode !== (this.doc.body ?? this.doc.documentElement)) {
      this.layoutChanged = true;
    }
    this.keepLayerLast();
    const layoutChanged = this.layoutChanged;
    this.layoutChanged = false;
    const viewport = viewportBox(this.doc);
    // Bounds for badges that live in the page's coordinates: the viewport's width, and the document's height (a
    // badge never reaches past the end of the page, so it never makes the page scroll further).
    const scroller = this.doc.scrollingElement ?? this.doc.documentElement;
    const scrollTop = scroller.scrollTop;
    const page: Box = { ...viewport, top: -scrollTop, bottom: scroller.scrollHeight - scrollTop };
    const gone: Entry[] = [];

    // Sizes of badges whose words changed: both forms laid out once, hidden (two layouts of the layer at most).
    const measuring = [...this.entries].filter((e) => e.shown && !e.gone && e.sizeStale && e.intersecting !== false);
    if (measuring.length > 0) this.measureSizes(measuring);

    // Reads. The clip boxes over their containers first (one read per container, whatever its number of badges; a
    // container clipping one axis only is open on the other). Then the badges: those already hidden whose anchors
    // are out of view cost nothing.
    const open: Box = {
      left: viewport.left - 4000,
      top: viewport.top - 4000,
      right: viewport.right + 4000,
      bottom: viewport.bottom + 4000,
    };
    for (const clip of this.clips.values()) clip.box = clipRect(clip.chain, open);
    const origin = this.host.getBoundingClientRect();
    const fixedOrigin = this.fixedLayer!.getBoundingClientRect();
    const plans: [Entry, Plan][] = [];
    for (const entry of this.entries) {
      if (!entry.shown) continue;
      if (!anchorConnected(entry.anchor)) {
        if (!entry.gone) gone.push(entry);
        entry.gone = true;
        if (entry.state !== 'hidden') plans.push([entry, null]);
        continue;
      }
      entry.gone = false;
      if (layoutChanged) entry.stale = true;
      if (entry.intersecting === false || !entry.sizes) {
        // Out of view because the page scrolled: a badge level with its field (nothing pins it, nothing moved since
        // it was placed) is out of view with it, and is left alone: no write, no repaint. A badge in a clip box
        // keeps following its field (out of sight): starting and stopping a moving layer costs more than moving it.
        if (entry.clipBox && entry.sizes) {
          plans.push([entry, this.placeEntry(entry, viewport, page)]);
          continue;
        }
        const offPage =
          entry.state === 'shown' &&
          !entry.stale &&
          !entry.pinned &&
          !entry.clipBox &&
          (entry.where === 'outside' || entry.where === 'inside');
        if (entry.state !== 'hidden' && !offPage) plans.push([entry, null]);
        continue;
      }
      plans.push([entry, this.placeEntry(entry, viewport, page)]);
    }
    const panelPlans = [...this.panels].map((panel) => {
      if (layoutChanged) panel.stale = true;
      return [panel, this.measurePanelAnchor(panel, viewport)] as const;
    });

    // Writes.
    for (const clip of this.clips.values()) {
      const box = clip.box!;
      const transform = `translate(${Math.round(box.left - fixedOrigin.left)}px, ${Math.round(box.top - fixedOrigin.top)}px)`;
      const size = `${Math.max(0, Math.round(box.right - box.left))}px ${Math.max(0, Math.round(box.bottom - box.top))}px`;
      if (clip.transform !== transform) clip.el.style.transform = clip.transform = transform;
      if (clip.size !== size) {
        clip.size = size;
        const [width, height] = size.split(' ');
        clip.el.style.width = width!;
        clip.el.style.height = height!;
      }
    }
    for (const [entry, plan] of plans) {
      const layer = entry.clipBox ? entry.clipBox.box! : entry.fixed ? fixedOrigin : origin;
      this.apply(entry, plan, layer, origin, viewport);
    }
    this.followPage = this.clips.size > 0;
    for (const entry of this.entries) if (entry.placed && (entry.fixed || entry.view.isOpen)) this.followPage = true;
    for (const [panel, at] of panelPlans) {
      if (!at) {
        this.closePanel(panel, false);
        continue;
      }
      this.positionPanel(panel.view.element, at, origin, viewport);
      panel.view.element.style.visibility = '';
      if (panel.focusWhenPlaced && panel.view.isOpen) {
        panel.focusWhenPlaced = false;
        panel.view.element.focus({ preventScroll: true });
      }
    }
    for (const entry of gone) entry.options.onGone?.(entry.handle);
  };

  private placeEntry(entry: Entry, viewport: Box, page: Box): Plan {
    const { anchor, el } = entry;
    if (entry.stale) {
      ({ chain: entry.chain, pinned: entry.pinned } = clipChain(el));
      entry.style = isRange(anchor) ? undefined : readFieldStyle(el);
      entry.stale = false;
      entry.roomStale = true;
      // visibility: hidden (or a hidden ancestor) comes with a change of style, which marks layout as changed.
      entry.invisible = typeof el.checkVisibility === 'function' && !el.checkVisibility({ visibilityProperty: true });
      this.settle(entry);
    }
    if (entry.invisible) return null;
    const rect = anchorRect(anchor);
    if (!rect) return null;
    // Badges live in the page's coordinates and scroll with it: a field below the fold keeps its badge beside it
    // (both out of view), so only the viewport's width bounds them. A fixed or sticky field stays in the viewport.
    const bounds = entry.fixed ? viewport : page;
    const clip = entry.clipBox?.box ? intersect(entry.clipBox.box, bounds) : clipRect(entry.chain, bounds);
    // A field partly or wholly scrolled out of its container keeps its badge where it was beside it; the clip box
    // cuts off what lies outside, as the container cuts off the field. Placed afresh once the field is wholly in view.
    const last = entry.last;
    const out = isEmpty(intersect(rect, clip));
    if (entry.clipBox && last) {
      const whole =
        rect.left >= clip.left && rect.right <= clip.right && rect.top >= clip.top && rect.bottom <= clip.bottom;
      if (!whole) {
        return { x: rect.left + last.dx, y: rect.top + last.dy, mode: last.mode, where: last.where, clippedOut: out };
      }
    }
    if (out) return null;
    const sizes = entry.sizes!;
    if (entry.roomStale) {
      // A field whose middle is out of the viewport cannot be hit-tested yet: ask again when it comes in.
      const covered = isCovered(anchor, rect, this.host!);
      entry.covered = covered === true;
      entry.room = roomAround(anchor, rect, sizes.full, this.host!);
      entry.roomStale = covered === null;
    }
    if (entry.covered) return null;
    let field: ReturnType<typeof fieldText> | undefined;
    if (entry.style && !isRange(anchor)) {
      const value = anchor.value ?? '';
      const typed = entry.typed;
      if (!typed || typed.value !== value || typed.font !== entry.style.font) {
        entry.typed = { value, font: entry.style.font, width: textWidth(value, entry.style, this.doc) };
      }
      field = fieldText(anchor, rect, entry.style, entry.typed!.width);
    }
    const placement = placeBadge({
      anchor: rect,
      clip,
      viewport: bounds,
      field,
      room: entry.room,
      full: sizes.full,
      compact: sizes.compact,
      mark: sizes.mark,
      expanded: entry.view.expanded,
    });
    entry.last = placement && {
      dx: placement.x - rect.left,
      dy: placement.y - rect.top,
      mode: placement.mode,
      where: placement.where,
    };
    return placement;
  }

  private measureSizes(entries: Entry[]): void {
    for (const entry of entries) {
      this.set(entry, 'state', 'measure');
      this.set(entry, 'mode', 'full');
    }
    const size = (e: Entry): Size => {
      const r = e.view.button.getBoundingClientRect();
      return { width: Math.ceil(r.width), height: Math.ceil(r.height) };
    };
    const full = entries.map(size);
    for (const entry of entries) this.set(entry, 'mode', 'compact');
    const compact = entries.map(size);
    for (const entry of entries) this.set(entry, 'mode', 'mark');
    entries.forEach((entry, i) => {
      entry.sizes = { full: full[i]!, compact: compact[i]!, mark: size(entry) };
      entry.sizeStale = false;
    });
  }

  /**
   * Writes a plan: `layer` is the origin of the box the badge lives in, `page` the layer's own (where its panel is).
   */
  private apply(entry: Entry, plan: Plan, layer: Box, page: Box, viewport: Box): void {
    const button = entry.view.button;
    entry.placed = plan;
    entry.clippedOut = !!plan?.clippedOut;
    if (!plan) {
      this.set(entry, 'state', 'hidden');
      if (entry.view.isOpen) entry.view.close();
      return;
    }
    const transform = `translate(${Math.round(plan.x - layer.left)}px, ${Math.round(plan.y - layer.top)}px)`;
    this.set(entry, 'state', 'shown');
    this.set(entry, 'mode', plan.mode);
    this.set(entry, 'where', plan.where);
    if (entry.transform !== transform) {
      button.style.transform = transform;
      entry.transform = transform;
    }
    if (entry.view.isOpen && plan.clippedOut) entry.view.close();
    if (entry.view.isOpen) {
      const size = entry.sizes![plan.mode];
      const at = { left: plan.x, top: plan.y, right: plan.x + size.width, bottom: plan.y + size.height };
      this.positionPanel(entry.view.panel, at, page, viewport);
    }
  }

  /**
   * Where a badge lives in the layer. A field that moves against the page (in a scrolling or clipping container, or
   * fixed) has its badge in the layer's fixed box, in the viewport's coordinates (inside its container's clip box when
   * it has one): following the container's scroll is a transform, which repaints nothing of the page. Any other badge
   * lives in the page's coordinates and scrolls with the page untouched.
   */
  private settle(entry: Entry): void {
    if (!this.root || !this.fixedLayer) return;
    const key = entry.chain[0]?.el;
    let clip: ClipBox | null = null;
    if (key) {
      clip = this.clips.get(key) ?? null;
      if (!clip) {
        const el = h(this.doc, 'div', { class: 'dte-clip' });
        clip = { key, chain: entry.chain, el, users: new Set(), box: null, transform: '', size: '' };
        this.clips.set(key, clip);
        this.fixedLayer.append(el);
      }
      clip.chain = entry.chain;
    }
    const fixed = !!clip || entry.pinned;
    if (clip === entry.clipBox && fixed === entry.fixed) return;
    this.release(entry);
    entry.fixed = fixed;
    entry.clipBox = clip;
    clip?.users.add(entry);
    entry.transform = '';
    const parent = clip ? clip.el : fixed ? this.fixedLayer : this.root;
    const move = (parent as unknown as { moveBefore?(node: Node, child: Node | null): void }).moveBefore;
    if (move && entry.wrapper.isConnected) {
      try {
        move.call(parent, entry.wrapper, null);
        return;
      } catch {
        // Not movable atomically here: append below.
      }
    }
    parent.append(entry.wrapper);
  }

  /** Takes a badge out of its clip box (the box goes with its last badge). */
  private release(entry: Entry): void {
    const clip = entry.clipBox;
    if (!clip) return;
    entry.clipBox = null;
    clip.users.delete(entry);
    if (clip.users.size > 0) return;
    clip.el.remove();
    this.clips.delete(clip.key);
  }

  /** Writes one of the badge's data attributes only when it changes (kept in the entry: reading them back costs). */
  private set(entry: Entry, key: 'state' | 'mode' | 'where', value: string): void {
    if (entry[key] === value) return;
    entry[key] = value;
    entry.view.button.dataset[key] = value;
  }

  private measurePanelAnchor(panel: FloatingPanel, viewport: Box): Box | null {
    if (!anchorConnected(panel.anchor)) return null;
    if (panel.stale) {
      panel.chain = clipChain(panel.el).chain;
      panel.stale = false;
    }
    const rect = anchorRect(panel.anchor);
    if (!rect || isEmpty(intersect(rect, clipRect(panel.chain, viewport)))) return null;
    return rect;
  }

  private positionPanel(element: HTMLElement, at: Box, origin: Box, viewport: Box): void {
    const place = placePanel(at, viewport);
    const style = element.style;
    const write = (key: 'left' | 'width' | 'maxHeight' | 'top', px: number) => {
      const value = `${Math.round(px)}px`;
      if (style[key] !== value) style[key] = value;
    };
    write('left', place.left - origin.left);
    write('width', place.width);
    write('maxHeight', place.maxHeight);
    // Above its anchor, the panel ends just over it: its height is read once its width and limit are set.
    const top = place.top ?? place.bottomEdge! - element.offsetHeight;
    write('top', top - origin.top);
  }

  // ------------------------------------------------------------------------------------------------------------
  // Removal

  private removeEntry(entry: Entry): void {
    if (!this.entries.delete(entry)) return;
    entry.view.destroy();
    entry.wrapper.remove();
    this.release(entry);
    this.untrack(entry);
  }

  private closePanel(panel: FloatingPanel, returnFocus: boolean): void {
    if (!this.panels.delete(panel)) return;
    const hadFocus = panel.view.element.contains(this.host?.shadowRoot?.activeElement ?? null);
    panel.view.element.remove();
    this.untrack(panel);
    const back = panel.returnFocus as HTMLElement | null;
    if ((returnFocus || hadFocus) && back?.isConnected && typeof back.focus === 'function') {
      back.focus({ preventScroll: true });
    }
  }

  // ------------------------------------------------------------------------------------------------------------
  // Pointer and keyboard

  /** A press anywhere outside a panel and its badge closes the panel (presses in the layer come retargeted to the host). */
  private readonly onPointerDown = (event: Event): void => {
    const path = event.composedPath();
    for (const entry of this.entries) {
      if (entry.view.isOpen && !path.includes(entry.view.panel) && !path.includes(entry.view.button)) {
        entry.view.close();
      }
    }
    for (const panel of this.panels) {
      if (panel.view.isOpen && !path.includes(panel.view.element)) this.closePanel(panel, false);
    }
  };

  /**
   * The badges sit at the end of the document, but Tab reaches each one right after its anchor: Tab from a field
   * (or from the last focusable thing before a piece of text) goes to its badge, Tab from the badge goes on to what
   * follows the anchor, and Shift+Tab walks the same way back.
   */
  private readonly onPageKey = (event: KeyboardEvent): void => {
    if (event.key !== 'Tab' || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    let active = this.doc.activeElement;
    if (!active || active === this.host) return;
    // A field inside one of the page's own (open) shadow roots: the focused element is the innermost one.
    while (active.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    const visible = this.visibleEntries();
    if (visible.length === 0) return;
    let target: Entry | undefined;
    if (!event.shiftKey) {
      target =
        visible.find((e) => e.anchor === active) ?? visible.find((e) => isRange(e.anchor) && this.before(e) === active);
    } else {
      target = [...visible].reverse().find((e) => this.after(e) === active);
    }
    if (!target) return;
    event.preventDefault();
    target.view.button.focus({ preventScroll: true });
  };

  private onBadgeKey(entry: Entry, event: KeyboardEvent): void {
    if (event.key !== 'Tab' || event.altKey || event.ctrlKey || event.metaKey) return;
    const next = event.shiftKey ? this.before(entry) : this.after(entry);
    if (!next) return;
    event.preventDefault();
    event.stopPropagation();
    next.focus({ preventScroll: true });
  }

  /** Shown badges in the document order of their anchors. */
  private visibleEntries(): Entry[] {
    const list = [...this.entries].filter((e) => e.placed && !e.gone && !e.clippedOut);
    return list.sort((a, b) => {
      const na = isRange(a.anchor) ? a.anchor.startContainer : a.anchor;
      const nb = isRange(b.anchor) ? b.anchor.startContainer : b.anchor;
      return na === nb ? 0 : na.compareDocumentPosition(nb) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    });
  }

  /** What Shift+Tab from a badge goes to: its field, or the last focusable thing before its text. */
  private before(entry: Entry): HTMLElement | null {
    const anchor = entry.anchor;
    if (!isRange(anchor)) return anchor;
    return this.walkTabbable(anchor.startContainer, false);
  }

  /** What Tab from a badge goes to: the first focusable thing after its anchor. */
  private after(entry: Entry): HTMLElement | null {
    const anchor = entry.anchor;
    let node: Node = anchor as Node;
    if (isRange(anchor)) {
      const end = anchor.endContainer;
      node = end.nodeType === 3 ? end : (end.childNodes[anchor.endOffset - 1] ?? end);
    }
    while (node.lastChild) node = node.lastChild;
    return this.walkTabbable(node, true);
  }

  private walkTabbable(from: Node, forward: boolean): HTMLElement | null {
    const walker = this.doc.createTreeWalker(this.doc.body ?? this.doc.documentElement, NodeFilter.SHOW_ELEMENT);
    walker.currentNode = from;
    for (let node = forward ? walker.nextNode() : walker.previousNode(); node;) {
      const el = node as HTMLElement;
      if (el !== this.host && el.matches(TABBABLE) && isTabbable(el)) return el;
      node = forward ? walker.nextNode() : walker.previousNode();
    }
    return null;
  }
}

function isTabbable(el: HTMLElement): boolean {
  if (el.tabIndex < 0 || (el as HTMLInputElement).disabled) return false;
  if (el.tagName === 'INPUT' && (el as HTMLInputElement).type === 'hidden') return false;
  if (el.closest('[inert]')) return false;
  return typeof el.checkVisibility === 'function' ? el.checkVisibility({ visibilityProperty: true }) : true;
}
