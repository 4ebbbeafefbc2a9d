import type { CheckOutcome } from '../../../ui/result/outcome';
import type { InlineBadge } from '../inline-badge';
import type { FieldStyle } from './field-text';
import type { Tracked } from './frame-loop';
import type { Mode, Placement } from './fit';
import type { Anchor, Box, Clipper, Size } from './geometry';
import type { Room } from './room';

/**
 * One badge of the overlay as its parts share it: what the caller holds (BadgeHandle), and what the tracker keeps of
 * it between frames (Entry).
 */

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

/** What the tracker keeps per badge between frames. */
export interface Entry extends Tracked {
  anchor: Anchor;
  el: Element;
  view: InlineBadge;
  wrapper: HTMLElement;
  options: BadgeOptions;
  handle: BadgeHandle;
  shown: boolean;
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
  /** The badge's data attributes as last written (see `setData`). */
  state: string;
  mode: string;
  where: string;
  /** The typed text's width, for the value and font it was measured in. */
  typed: { value: string; font: string; width: number } | null;
  gone: boolean;
}

/**
 * A box in the layer's fixed box over the visible part of a scrolling (or clipping) container: the badges of the
 * container's fields live inside it, so what of them lies outside the container is cut off exactly as the page cuts
 * off the fields, and following the container's scroll moves them with a transform only (no hiding and showing).
 */
export interface ClipBox {
  key: Element;
  chain: Clipper[];
  el: HTMLDivElement;
  users: Set<Entry>;
  box: Box | null;
  transform: string;
  size: string;
}

/** Where a badge goes this frame; `clippedOut`: its field is out of its container's view (the clip box hides it). */
export type Plan = (Placement & { clippedOut?: boolean }) | null;

/** A new badge's entry, not yet shown, with everything to be read; its `view` and `handle` are the caller's to set. */
export function newEntry(anchor: Anchor, el: Element, wrapper: HTMLElement, options: BadgeOptions): Entry {
  return {
    anchor,
    el,
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
}

/** Writes one of the badge's data attributes only when it changes (kept in the entry: reading them back costs). */
export function setData(entry: Entry, key: 'state' | 'mode' | 'where', value: string): void {
  if (entry[key] === value) return;
  entry[key] = value;
  entry.view.button.dataset[key] = value;
}
