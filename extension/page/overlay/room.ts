import { anchorElement, GAP, isRange, type Anchor, type Box, type Size } from './geometry';

/**
 * What of the page lies beside or over an anchor, from hit tests: the free width where its badge may go, and whether
 * something covers the anchor itself. Reads only (hit tests and layout queries); nothing here writes to the page.
 */

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
