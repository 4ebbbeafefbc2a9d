import { GAP, intersect, isEmpty, type Box, type Size } from './geometry';
import type { Room } from './room';

/**
 * Where a badge or a panel goes, in viewport pixels, from the boxes read from the page (geometry.ts,
 * room.ts, field-text.ts). Pure: no DOM.
 */

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

/**
 * The badge's forms, widest first: the full words; the dot and one word; the mark alone (the tone's symbol ✓ ◐ ✕ ! in
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
