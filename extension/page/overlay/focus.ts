import type { Entry } from './entry';
import { isRange } from './geometry';
import type { OverlayLayer } from './layer';

const TABBABLE =
  'a[href], area[href], button, input, select, textarea, iframe, summary, [tabindex], [contenteditable], audio[controls], video[controls]';

/**
 * The badges sit at the end of the document, but Tab reaches each one right after its anchor: Tab from a field
 * (or from the last focusable thing before a piece of text) goes to its badge, Tab from the badge goes on to what
 * follows the anchor, and Shift+Tab walks the same way back.
 */
export class TabOrder {
  constructor(
    private readonly doc: Document,
    private readonly layer: OverlayLayer,
    private readonly entries: ReadonlySet<Entry>,
  ) {}

  /** Tab in the page: from an anchor (or what comes before a piece of text) to its badge. */
  readonly onPageKey = (event: KeyboardEvent): void => {
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

  /** Tab on a badge: on to what follows its anchor, or (Shift+Tab) back to the anchor. */
  onBadgeKey(entry: Entry, event: KeyboardEvent): void {
    if (event.key !== 'Tab' || event.altKey || event.ctrlKey || event.metaKey) return;
    const next = event.shiftKey ? this.before(entry) : this.after(entry);
    if (!next) return;
    event.preventDefault();
    event.stopPropagation();
    next.focus({ preventScroll: true });
  }

  private get host(): HTMLElement | null {
    return this.layer.mounted?.host ?? null;
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
    const host = this.host;
    for (let node = forward ? walker.nextNode() : walker.previousNode(); node;) {
      const el = node as HTMLElement;
      if (el !== host && el.matches(TABBABLE) && isTabbable(el)) return el;
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
