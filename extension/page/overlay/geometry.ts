/**
 * The boxes of the overlay's anchors and of what clips them, in viewport pixels. The reads (`anchorRect`,
 * `clipChain`, `clipRect`, `viewportBox`) touch the page only through layout queries. Nothing here writes to the page.
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
// The anchor's box

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
