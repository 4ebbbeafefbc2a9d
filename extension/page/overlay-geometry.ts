/**
 * Where a badge of the overlay goes, in viewport pixels. The reads (`measureAnchor`, `clipChain`, `clipRect`,
 * `roomAround`) touch the page only through layout queries; `placeBadge` is pure. Nothing here writes to the page.
 */

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface Size {
  width: number;
  height: number;
}

/** What the overlay anchors a badge to: a field, or a piece of displayed text (a postcode in a text node, a selection). */
export type Anchor = HTMLInputElement | HTMLTextAreaElement | Range;

export function isRange(anchor: Anchor): anchor is Range {
  return !('nodeType' in anchor);
}

/** The element an anchor lives in: the field itself, or the element around the text. */
export function anchorElement(anchor: Anchor): Element | null {
  if (!isRange(anchor)) return anchor;
  const node = anchor.commonAncestorContainer;
  return node.nodeType === 1 ? (node as Element) : node.parentElement;
}

/** Whether the anchor is still in its document (a removed text node collapses its range into the parent). */
export function anchorConnected(anchor: Anchor): boolean {
  if (!isRange(anchor)) return anchor.isConnected;
  return !anchor.collapsed && anchor.startContainer.isConnected && anchor.endContainer.isConnected;
}

export const GAP = 4;

export function intersect(a: Box, b: Box): Box {
  return {
    left: Math.max(a.left, b.left),
    top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right),
    bottom: Math.min(a.bottom, b.bottom),
  };
}

export function isEmpty(box: Box): boolean {
  return box.right <= box.left || box.bottom <= box.top;
}

function within(box: Box, bounds: Box): boolean {
  const e = 0.5;
  return (
    box.left >= bounds.left - e &&
    box.top >= bounds.top - e &&
    box.right <= bounds.right + e &&
    box.bottom <= bounds.bottom + e
  );
}

function boxAt(x: number, y: number, size: Size): Box {
  return { left: x, top: y, right: x + size.width, bottom: y + size.height };
}

// ---------------------------------------------------------------------------------------------------------------
// Clipping

/** An ancestor that clips its overflow, on the axes it clips. */
export interface Clipper {
  el: Element;
  x: boolean;
  y: boolean;
}

/** How an anchor can be hidden or moved: its clipping ancestors, and whether it stays put while the page scrolls. */
export interface ClipInfo {
  chain: Clipper[];
  /** The anchor or an ancestor is fixed or sticky: a page scroll moves it against the document. */
  pinned: boolean;
}

const CLIPPING = new Set(['hidden', 'auto', 'scroll', 'clip', 'overlay']);

/**
 * The ancestors of `el` that clip it (overflow other than visible, or `contain: paint`), nearest first. Ancestors
 * outside the element's containing-block chain (a `position: fixed` element escapes its scrolling ancestors; an
 * absolutely positioned one escapes those that are not positioned) are left out, as the browser leaves them out.
 * So is a field's own frame: a box that hides its overflow but is no taller than the field and holds no other field
 * (Ant Design's InputNumber wraps its input so) is part of the field, not a container it can scroll out of. The root
 * element and the body are the viewport's business. Read on layout changes, not on every scroll.
 */
export function clipChain(el: Element): ClipInfo {
  const doc = el.ownerDocument;
  const view = doc.defaultView;
  if (!view) return { chain: [], pinned: false };
  const chain: Clipper[] = [];
  let position = view.getComputedStyle(el).position;
  let pinned = position === 'fixed' || position === 'sticky';
  const field = el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' ? el.getBoundingClientRect().height : -1;
  let node: Element | null = parentOf(el);
  while (node && node !== doc.documentElement) {
    const style = view.getComputedStyle(node);
    if (style.position === 'fixed' || style.position === 'sticky') pinned = true;
    const paint = style.contain.includes('paint') || style.contain === 'strict' || style.contain === 'content';
    const establishes =
      paint ||
      style.transform !== 'none' ||
      style.perspective !== 'none' ||
      style.filter !== 'none' ||
      style.contain.includes('layout');
    const skip =
      (position === 'fixed' && !establishes) ||
      (position === 'absolute' && style.position === 'static' && !establishes);
    if (!skip) {
      if (node !== doc.body) {
        const x = paint || CLIPPING.has(style.overflowX);
        const y = paint || CLIPPING.has(style.overflowY);
        if ((x || y) && !isFieldFrame(node, style, field)) chain.push({ el: node, x, y });
      }
      position = style.position;
    }
    node = parentOf(node);
  }
  return { chain, pinned };
}

const SCROLLING = new Set(['auto', 'scroll', 'overlay']);

function isFieldFrame(node: Element, style: CSSStyleDeclaration, fieldHeight: number): boolean {
  if (fieldHeight < 0 || SCROLLING.has(style.overflowX) || SCROLLING.has(style.overflowY)) return false;
  if (node.getBoundingClientRect().height > fieldHeight + 16) return false;
  const controls = node.querySelectorAll('input:not([type=hidden]), select, textarea');
  return controls.length <= 1;
}

/** The parent element, crossing out of a page's own shadow roots and slots. */
function parentOf(el: Element): Element | null {
  if (el.assignedSlot) return el.assignedSlot;
  if (el.parentElement) return el.parentElement;
  const root = el.parentNode;
  return root && root.nodeType === 11 && (root as ShadowRoot).host ? (root as ShadowRoot).host : null;
}

/** The viewport without its scrollbars. */
export function viewportBox(doc: Document): Box {
  const root = doc.documentElement;
  const view = doc.defaultView;
  const width = root.clientWidth || view?.innerWidth || 0;
  const height =
    (doc.compatMode === 'BackCompat' ? doc.body?.clientHeight : root.clientHeight) || view?.innerHeight || 0;
  return { left: 0, top: 0, right: width, bottom: height };
}

/** The visible region of an anchor's clipping ancestors, inside the viewport (the padding boxes, scrollbars excluded). */
export function clipRect(chain: readonly Clipper[], viewport: Box): Box {
  let clip = viewport;
  for (const { el, x, y } of chain) {
    const r = el.getBoundingClientRect();
    const left = r.left + el.clientLeft;
    const top = r.top + el.clientTop;
    // An inline element has no client box (clientWidth 0): its border box is close enough.
    const width = el.clientWidth || r.width;
    const height = el.clientHeight || r.height;
    clip = intersect(clip, {
      left: x ? left : -Infinity,
      right: x ? left + width : Infinity,
      top: y ? top : -Infinity,
      bottom: y ? top + height : Infinity,
    });
  }
  return clip;
}

// ---------------------------------------------------------------------------------------------------------------
// The anchor's box and the typed text

/** What placing a badge needs to know of a field's style; read on layout changes. */
export interface FieldStyle {
  font: string;
  letterSpacing: string;
  align: 'left' | 'right' | 'center';
  borderLeft: number;
  borderRight: number;
  borderTop: number;
  borderBottom: number;
  paddingLeft: number;
  paddingRight: number;
}

export function readFieldStyle(field: Element): FieldStyle {
  const s = field.ownerDocument.defaultView!.getComputedStyle(field);
  const px = (v: string) => parseFloat(v) || 0;
  const rtl = s.direction === 'rtl';
  let align: FieldStyle['align'] = rtl ? 'right' : 'left';
  if (s.textAlign === 'center') align = 'center';
  else if (s.textAlign === 'right' || (s.textAlign === 'end' && !rtl) || (s.textAlign === 'start' && rtl)) {
    align = 'right';
  } else if (s.textAlign === 'left' || (s.textAlign === 'end' && rtl)) align = 'left';
  return {
    // The canvas reads the same shorthand the browser resolves for the field.
    font: `${s.fontStyle} ${s.fontVariant === 'small-caps' ? 'small-caps ' : ''}${s.fontWeight} ${s.fontSize} ${s.fontFamily}`,
    letterSpacing: s.letterSpacing === 'normal' ? '0px' : s.letterSpacing,
    align,
    borderLeft: px(s.borderLeftWidth),
    borderRight: px(s.borderRightWidth),
    borderTop: px(s.borderTopWidth),
    borderBottom: px(s.borderBottomWidth),
    paddingLeft: px(s.paddingLeft),
    paddingRight: px(s.paddingRight),
  };
}

type Measure = { measureText(text: string): { width: number }; font: string; letterSpacing?: string };
let measurer: Measure | null | undefined;

/** The width of `text` in `style`'s font, from a canvas (no DOM, no layout). */
export function textWidth(text: string, style: FieldStyle, doc: Document): number {
  if (measurer === undefined) {
    const canvas = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(1, 1) : doc.createElement('canvas');
    measurer = (canvas.getContext('2d') as unknown as Measure | null) ?? null;
  }
  if (!measurer) return text.length * (parseFloat(style.font.split(' ').find((p) => p.endsWith('px')) ?? '16') || 16);
  if (measurer.font !== style.font) measurer.font = style.font;
  if ('letterSpacing' in measurer && measurer.letterSpacing !== style.letterSpacing) {
    measurer.letterSpacing = style.letterSpacing;
  }
  return measurer.measureText(text).width;
}

/**
 * The extent of a field's typed text, in viewport x, and the box its content sits in (inside border and padding).
 * `width` is the text's width (`textWidth`), which the caller keeps while the value and font stay the same.
 */
export function fieldText(
  field: HTMLInputElement | HTMLTextAreaElement,
  rect: Box,
  style: FieldStyle,
  width: number,
): { text: { left: number; right: number }; inner: Box } {
  const inner: Box = {
    left: rect.left + style.borderLeft,
    right: rect.right - style.borderRight,
    top: rect.top + style.borderTop,
    bottom: rect.bottom - style.borderBottom,
  };
  const contentLeft = inner.left + style.paddingLeft;
  const contentRight = inner.right - style.paddingRight;
  width = Math.ceil(width);
  let left: number;
  if (width >= contentRight - contentLeft) left = contentLeft - field.scrollLeft;
  else if (style.align === 'right') left = contentRight - width;
  else if (style.align === 'center') left = (contentLeft + contentRight - width) / 2;
  else left = contentLeft;
  // Text wider than the box scrolls: it reaches the end of the box whatever the scroll position.
  const right = width >= contentRight - contentLeft ? Math.max(contentRight, left + width) : left + width;
  return { text: { left, right }, inner };
}

/** The box a badge is placed beside: the field's border box, or the last line box of a range (where the text ends). */
export function anchorRect(anchor: Anchor): Box | null {
  if (!isRange(anchor)) {
    const r = anchor.getBoundingClientRect();
    return r.width === 0 && r.height === 0 ? null : r;
  }
  const rects = anchor.getClientRects();
  for (let i = rects.length - 1; i >= 0; i--) {
    const r = rects[i]!;
    if (r.width > 0 || r.height > 0) return r;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Free room beside the anchor

const SAMPLE_STEP = 16;

/** Free width beside the anchor where its badge may go without covering anything of the page's. */
export interface Room {
  /** Right of the anchor, on its middle line. */
  right: number;
  /** Under and over the anchor, from its left edge, on the middle line of a badge of the height asked for. */
  below: number;
  above: number;
}

/**
 * How much free width there is right of, below and above the anchor, up to `want` pixels each: sampled with hit tests
 * along the line a badge's middle would take. A point is free over the background of something that holds the anchor
 * (the row, the form, the body); another field, a label, a button or (beside text) the following words are not free.
 * Points outside the viewport count as free here: the clip rect limits them. `ownHost` is the overlay's own layer,
 * which hit tests see through.
 */
export function roomAround(anchor: Anchor, rect: Box, want: Size, ownHost: Element): Room {
  const el = anchorElement(anchor);
  if (!el) return { right: 0, below: 0, above: 0 };
  const line = (x0: number, y: number) => freeWidth(el, isRange(anchor), ownHost, x0, y, want.width);
  return {
    right: line(rect.right + GAP, (rect.top + rect.bottom) / 2),
    below: line(rect.left, rect.bottom + 2 + want.height / 2),
    above: line(rect.left, rect.top - 2 - want.height / 2),
  };
}

function freeWidth(el: Element, text: boolean, ownHost: Element, start: number, y: number, want: number): number {
  const doc = el.ownerDocument;
  const view = doc.defaultView;
  const width = view?.innerWidth ?? 0;
  const height = view?.innerHeight ?? 0;
  if (y < 0 || y >= height) return want;
  for (let dx = 1; dx <= want + SAMPLE_STEP - 1; dx += SAMPLE_STEP) {
    const offset = Math.min(dx, want);
    const x = start + offset;
    if (x >= width) return want;
    if (x < 0) continue;
    if (!isFreeAt(doc, x, y, el, text, ownHost)) return Math.max(0, offset - SAMPLE_STEP);
  }
  return want;
}

/**
 * Whether something of the page lies over the anchor's middle: a modal's backdrop, a menu, a sticky header. Null
 * when the middle is out of the viewport (cannot be told). Its own label or wrapper do not count.
 */
export function isCovered(anchor: Anchor, rect: Box, ownHost: Element): boolean | null {
  const el = anchorElement(anchor);
  if (!el) return null;
  const doc = el.ownerDocument;
  const view = doc.defaultView;
  const x = (rect.left + rect.right) / 2;
  const y = (rect.top + rect.bottom) / 2;
  if (!view || x < 0 || y < 0 || x >= view.innerWidth || y >= view.innerHeight) return null;
  const hit = hitAt(doc, x, y, ownHost);
  return !!hit && hit !== el && !el.contains(hit) && !hit.contains(el);
}

function hitAt(doc: Document, x: number, y: number, ownHost: Element): Element | null {
  const hit = doc.elementFromPoint(x, y);
  if (hit !== ownHost) return hit;
  for (const el of doc.elementsFromPoint(x, y)) if (el !== ownHost) return el;
  return null;
}

function isFreeAt(doc: Document, x: number, y: number, el: Element, text: boolean, ownHost: Element): boolean {
  const hit = hitAt(doc, x, y, ownHost);
  if (!hit || hit === doc.documentElement || hit === doc.body) return true;
  if (!hit.contains(el)) return false;
  return !text || !textAt(doc, x, y);
}

/** Whether there are characters under a point (beside a postcode in running text, the words that follow it). */
function textAt(doc: Document, x: number, y: number): boolean {
  const caret = doc.caretPositionFromPoint?.(x, y);
  const node = caret?.offsetNode;
  if (!node || node.nodeType !== 3) return false;
  const length = (node as Text).length;
  const range = doc.createRange();
  for (const offset of [caret.offset - 1, caret.offset]) {
    if (offset < 0 || offset >= length) continue;
    range.setStart(node, offset);
    range.setEnd(node, offset + 1);
    const r = range.getBoundingClientRect();
    if (x >= r.left - 1 && x <= r.right + 1 && y >= r.top && y <= r.bottom) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Placement

/**
 * The badge's forms, widest first: the full words; the dot and one word; the mark alone (the tone's symbol ✓ ✕ ! in
 * its colour, for a dense grid's narrow field). Each keeps the full words as its accessible name and title.
 */
export type Mode = 'full' | 'compact' | 'mark';
export type Where = 'outside' | 'inside' | 'below' | 'above' | 'fallback';

export interface PlacementInput {
  /** The anchor's box (a field's border box, or the last line of a range). */
  anchor: Box;
  /** Where the anchor can be seen: the viewport and every clipping ancestor. */
  clip: Box;
  viewport: Box;
  /**
   * A field's box inside its border, and the extent of its typed text. Absent for text anchors, whose badge goes
   * right after the text's last line box even where words follow (as the mark when they leave no room).
   */
  field?: { inner: Box; text: { left: number; right: number } };
  /** Free width right of, below and above the anchor (hit-tested); Infinity when the page was not asked. */
  room: Room;
  full: Size;
  compact: Size;
  mark: Size;
  /** Focused: the full words, wherever they fit. */
  expanded: boolean;
}

export interface Placement {
  x: number;
  y: number;
  mode: Mode;
  where: Where;
}

/**
 * Where a badge goes, first that fits: just right of the anchor where nothing of the page's is (full words, then the
 * compact form); inside the right end of a field whose typed text stops short of it (the same two forms); below the
 * anchor, then above it, where nothing of the page's is (a form's free margin); the mark alone right of the anchor,
 * then inside the field. So a dense grid row keeps its badge on the row, over no neighbour, no digit and no field of
 * the next row. Only then below or above over the page. Null hides it: the anchor cannot be seen. Text gets its badge
 * right after it: the words where there is room, else the mark, there anyway (words follow): the least of the page
 * covered. When nothing fits the clip rect
 * the badge goes below the anchor, kept inside the viewport (still readable, still clear of the digits).
 */
export function placeBadge(input: PlacementInput): Placement | null {
  const { anchor, clip, viewport, field, room, expanded } = input;
  if (isEmpty(intersect(anchor, clip))) return null;
  const words: [Mode, Size][] = expanded
    ? [['full', input.full]]
    : [
        ['full', input.full],
        ['compact', input.compact],
      ];
  const mark: [Mode, Size][] = expanded ? [] : [['mark', input.mark]];

  const middle = (size: Size) => {
    const y = (anchor.top + anchor.bottom - size.height) / 2;
    // Kept inside the clip rect while it still faces the anchor (a field half scrolled out of its box).
    const low = Math.max(clip.top, anchor.top - size.height / 2);
    const high = Math.min(clip.bottom - size.height, anchor.bottom - size.height / 2);
    return low <= high ? Math.min(Math.max(y, low), high) : y;
  };
  const outside = (forms: [Mode, Size][], anyway: boolean): Placement | null => {
    for (const [mode, size] of forms) {
      const x = anchor.right + GAP;
      if ((anyway || expanded || size.width <= room.right) && within(boxAt(x, middle(size), size), clip)) {
        return { x, y: middle(size), mode, where: 'outside' };
      }
    }
    return null;
  };
  const inside = (forms: [Mode, Size][]): Placement | null => {
    if (!field) return null;
    for (const [mode, size] of forms) {
      const x = field.inner.right - GAP - size.width;
      const y = (anchor.top + anchor.bottom - size.height) / 2;
      if (
        x >= field.text.right + GAP &&
        x >= field.inner.left &&
        size.height <= field.inner.bottom - field.inner.top + 1 &&
        within(boxAt(x, y, size), clip)
      ) {
        return { x, y, mode, where: 'inside' };
      }
    }
    return null;
  };
  const under = (free: boolean): Placement | null => {
    for (const where of ['below', 'above'] as const) {
      for (const [mode, size] of words) {
        // Where nothing of the page's is, it starts under the anchor's left edge (as the free width was sampled).
        const x = free ? anchor.left : Math.max(clip.left, Math.min(anchor.left, clip.right - size.width));
        const y = where === 'below' ? anchor.bottom + 2 : anchor.top - 2 - size.height;
        if ((!free || expanded || size.width <= room[where]) && within(boxAt(x, y, size), clip)) {
          return { x, y, mode, where };
        }
      }
    }
    return null;
  };
  // Text gets its badge after it, as a reader looks for it; a field, beside or inside it before under it.
  const placed = field
    ? (outside(words, false) ?? inside(words) ?? under(true) ?? outside(mark, false) ?? inside(mark) ?? under(false))
    : (outside(words, false) ?? outside(mark, true) ?? under(false));
  if (placed) return placed;
  const [mode, size] = words[words.length - 1]!;
  const x = Math.max(viewport.left, Math.min(anchor.left, viewport.right - size.width));
  const below = anchor.bottom + 2;
  const y = below + size.height <= viewport.bottom ? below : Math.max(viewport.top, anchor.top - 2 - size.height);
  return { x, y, mode, where: 'fallback' };
}

/**
 * Where a panel goes: under its badge (or the text), else above it (`bottomEdge`: the y of its lower edge), inside the
 * viewport.
 */
export function placePanel(
  at: Box,
  viewport: Box,
  maxWidth = 440,
): { left: number; width: number; top?: number; bottomEdge?: number; maxHeight: number } {
  const margin = 8;
  const width = Math.min(maxWidth, viewport.right - viewport.left - 2 * margin);
  const left = Math.max(viewport.left + margin, Math.min(at.left, viewport.right - width - margin));
  const below = viewport.bottom - at.bottom - margin;
  const above = at.top - viewport.top - margin;
  if (below >= 260 || below >= above) return { left, width, top: at.bottom + 4, maxHeight: Math.max(160, below - 4) };
  return { left, width, bottomEdge: at.top - 4, maxHeight: Math.max(160, above - 4) };
}
