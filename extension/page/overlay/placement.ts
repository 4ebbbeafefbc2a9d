import { h } from '../../../ui/common/dom';
import { setData, type ClipBox, type Entry, type Plan } from './entry';
import { fieldText, readFieldStyle, textWidth } from './field-text';
import { placeBadge } from './fit';
import {
  anchorConnected,
  anchorRect,
  clipChain,
  clipRect,
  intersect,
  isEmpty,
  isRange,
  viewportBox,
  type Box,
  type Size,
} from './geometry';
import { moveToEnd, type MountedLayer } from './layer';
import { positionPanel } from './panels';
import { isCovered, roomAround } from './room';

/** What bounds a badge this frame: the viewport, and the page (see `read`). */
interface Bounds {
  viewport: Box;
  page: Box;
}

/** What a frame read of the badges, for it to write. */
export interface BadgeReads {
  viewport: Box;
  /** The layer's box (the page's coordinates), and its fixed box's (the viewport's). */
  origin: Box;
  fixedOrigin: Box;
  plans: [Entry, Plan][];
  /** Badges whose anchors left the document this frame. */
  gone: Entry[];
}

/**
 * Places the badges, one frame at a time: which box of the layer each lives in (the page's coordinates, the fixed
 * box, or its container's clip box), where it goes beside its anchor, and in which form. Reads first (`read`), then
 * writes (`write`), and a write only where something moved.
 */
export class BadgePlacer {
  private readonly clips = new Map<Element, ClipBox>();
  /** Some shown badge is pinned (fixed or sticky) or has its panel open: a page scroll moves it (set each frame). */
  private followPage = false;

  constructor(
    private readonly doc: Document,
    private readonly entries: ReadonlySet<Entry>,
  ) {}

  /** Whether a page scroll moves a badge against the page, as of the last frame. */
  get followsPage(): boolean {
    return this.followPage;
  }

  read(layer: MountedLayer, layoutChanged: boolean): BadgeReads {
    const viewport = viewportBox(this.doc);
    // Bounds for badges that live in the page's coordinates: the viewport's width, and the document's height (a
    // badge never reaches past the end of the page, so it never makes the page scroll further).
    const scroller = this.doc.scrollingElement ?? this.doc.documentElement;
    const scrollTop = scroller.scrollTop;
    const page: Box = { ...viewport, top: -scrollTop, bottom: scroller.scrollHeight - scrollTop };

    // Sizes of badges whose words changed: both forms laid out once, hidden (two layouts of the layer at most).
    const measuring = [...this.entries].filter((e) => e.shown && !e.gone && e.sizeStale && e.intersecting === true);
    if (measuring.length > 0) measureSizes(measuring);

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
    const origin = layer.host.getBoundingClientRect();
    const fixedOrigin = layer.fixed.getBoundingClientRect();
    const plans: [Entry, Plan][] = [];
    const gone: Entry[] = [];
    for (const entry of this.entries) {
      const plan = this.planFor(entry, layer, { viewport, page }, layoutChanged, gone);
      if (plan !== undefined) plans.push([entry, plan]);
    }
    // A clip box made while planning (its first badge settled this frame) is read too: the writes need its box.
    for (const clip of this.clips.values()) clip.box ??= clipRect(clip.chain, open);
    return { viewport, origin, fixedOrigin, plans, gone };
  }

  write({ viewport, origin, fixedOrigin, plans }: BadgeReads): void {
    for (const clip of this.clips.values()) writeClipBox(clip, fixedOrigin);
    for (const [entry, plan] of plans) {
      const layer = entry.clipBox ? entry.clipBox.box! : entry.fixed ? fixedOrigin : origin;
      apply(entry, plan, layer, origin, viewport);
    }
    this.followPage = this.clips.size > 0;
    for (const entry of this.entries) if (entry.placed && (entry.fixed || entry.view.isOpen)) this.followPage = true;
  }

  /** Takes a badge out of its clip box (the box goes with its last badge). */
  release(entry: Entry): void {
    const clip = entry.clipBox;
    if (!clip) return;
    entry.clipBox = null;
    clip.users.delete(entry);
    if (clip.users.size > 0) return;
    clip.el.remove();
    this.clips.delete(clip.key);
  }

  /** Forgets the clip boxes (the layer they were in is gone). */
  clear(): void {
    this.clips.clear();
  }

  /** This frame's plan for one badge; undefined: none, the badge is left as it is (no write). */
  private planFor(
    entry: Entry,
    layer: MountedLayer,
    bounds: Bounds,
    layoutChanged: boolean,
    gone: Entry[],
  ): Plan | undefined {
    if (!entry.shown) return undefined;
    if (!anchorConnected(entry.anchor)) {
      if (!entry.gone) gone.push(entry);
      entry.gone = true;
      return entry.state !== 'hidden' ? null : undefined;
    }
    entry.gone = false;
    if (layoutChanged) entry.stale = true;
    // Not known to be in view yet (the IntersectionObserver answers within a frame of a badge being added): on a page
    // of thousands of fields, placing every new badge before it answers would lay out and hit-test them all.
    if (entry.intersecting !== true || !entry.sizes) {
      // Out of view because the page scrolled: a badge level with its field (nothing pins it, nothing moved since
      // it was placed) is out of view with it, and is left alone: no write, no repaint. A badge in a clip box
      // keeps following its field (out of sight): starting and stopping a moving layer costs more than moving it.
      if (entry.clipBox && entry.sizes) return this.placeEntry(entry, layer, bounds);
      const offPage =
        entry.state === 'shown' &&
        !entry.stale &&
        !entry.pinned &&
        !entry.clipBox &&
        (entry.where === 'outside' || entry.where === 'inside');
      return entry.state !== 'hidden' && !offPage ? null : undefined;
    }
    return this.placeEntry(entry, layer, bounds);
  }

  private placeEntry(entry: Entry, layer: MountedLayer, { viewport, page }: Bounds): Plan {
    const { anchor, el } = entry;
    if (entry.stale) {
      ({ chain: entry.chain, pinned: entry.pinned } = clipChain(el));
      entry.style = isRange(anchor) ? undefined : readFieldStyle(el);
      entry.stale = false;
      entry.roomStale = true;
      // visibility: hidden (or a hidden ancestor) comes with a change of style, which marks layout as changed.
      entry.invisible = typeof el.checkVisibility === 'function' && !el.checkVisibility({ visibilityProperty: true });
      this.settle(entry, layer);
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
      const covered = isCovered(anchor, rect, layer.host);
      entry.covered = covered === true;
      entry.room = roomAround(anchor, rect, sizes.full, layer.host);
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

  /**
   * Where a badge lives in the layer. A field that moves against the page (in a scrolling or clipping container, or
   * fixed) has its badge in the layer's fixed box, in the viewport's coordinates (inside its container's clip box when
   * it has one): following the container's scroll is a transform, which repaints nothing of the page. Any other badge
   * lives in the page's coordinates and scrolls with the page untouched.
   */
  private settle(entry: Entry, layer: MountedLayer): void {
    const key = entry.chain[0]?.el;
    let clip: ClipBox | null = null;
    if (key) {
      clip = this.clips.get(key) ?? null;
      if (!clip) {
        const el = h(this.doc, 'div', { class: 'dte-clip' });
        clip = { key, chain: entry.chain, el, users: new Set(), box: null, transform: '', size: '' };
        this.clips.set(key, clip);
        layer.fixed.append(el);
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
    const parent = clip ? clip.el : fixed ? layer.fixed : layer.root;
    moveToEnd(parent, entry.wrapper, entry.wrapper.isConnected);
  }
}

function measureSizes(entries: Entry[]): void {
  for (const entry of entries) {
    setData(entry, 'state', 'measure');
    setData(entry, 'mode', 'full');
  }
  const size = (e: Entry): Size => {
    const r = e.view.button.getBoundingClientRect();
    return { width: Math.ceil(r.width), height: Math.ceil(r.height) };
  };
  const full = entries.map(size);
  for (const entry of entries) setData(entry, 'mode', 'compact');
  const compact = entries.map(size);
  for (const entry of entries) setData(entry, 'mode', 'mark');
  entries.forEach((entry, i) => {
    entry.sizes = { full: full[i]!, compact: compact[i]!, mark: size(entry) };
    entry.sizeStale = false;
  });
}

/** Moves and sizes a clip box over its container's visible part, as read this frame (`fixedOrigin`: its parent's box). */
function writeClipBox(clip: ClipBox, fixedOrigin: Box): void {
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

/**
 * Writes a plan: `layer` is the origin of the box the badge lives in, `page` the layer's own (where its panel is).
 */
function apply(entry: Entry, plan: Plan, layer: Box, page: Box, viewport: Box): void {
  const button = entry.view.button;
  entry.placed = plan;
  entry.clippedOut = !!plan?.clippedOut;
  if (!plan) {
    setData(entry, 'state', 'hidden');
    if (entry.view.isOpen) entry.view.close();
    return;
  }
  const transform = `translate(${Math.round(plan.x - layer.left)}px, ${Math.round(plan.y - layer.top)}px)`;
  setData(entry, 'state', 'shown');
  setData(entry, 'mode', plan.mode);
  setData(entry, 'where', plan.where);
  if (entry.transform !== transform) {
    button.style.transform = transform;
    entry.transform = transform;
  }
  if (entry.view.isOpen && plan.clippedOut) entry.view.close();
  if (entry.view.isOpen) {
    const size = entry.sizes![plan.mode];
    const at = { left: plan.x, top: plan.y, right: plan.x + size.width, bottom: plan.y + size.height };
    positionPanel(entry.view.panel, at, page, viewport);
  }
}
