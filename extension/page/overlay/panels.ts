import { copyText } from '../../../ui/common/clipboard';
import type { Entry } from './entry';
import { placePanel } from './fit';
import type { FrameLoop, Tracked } from './frame-loop';
import {
  anchorConnected,
  anchorElement,
  anchorRect,
  clipChain,
  clipRect,
  intersect,
  isEmpty,
  type Anchor,
  type Box,
  type Clipper,
} from './geometry';
import type { OverlayLayer } from './layer';
import { ResultPanel, type PanelContent } from '../result-panel';

/** A panel opened on its own at a piece of text (the context menu's answer). */
export interface PanelHandle {
  readonly element: HTMLElement;
  readonly isOpen: boolean;
  show(content: PanelContent): void;
  close(): void;
}

interface FloatingPanel extends Tracked {
  anchor: Anchor;
  el: Element;
  view: ResultPanel;
  chain: Clipper[];
  stale: boolean;
  returnFocus: Element | null;
  /** Focus goes into the panel once it is placed (a hidden element cannot take focus). */
  focusWhenPlaced: boolean;
  handle: PanelHandle;
}

/** Where a panel's anchor is this frame; null: out of view or gone (the panel closes). */
export type PanelPlan = readonly [FloatingPanel, Box | null];

export interface OverlayPanelsDeps {
  layer: OverlayLayer;
  loop: FrameLoop;
  /** Every badge: a press outside a badge's open panel closes it too. */
  entries: ReadonlySet<Entry>;
  openOptions?(): void;
  /** Puts a panel's element in the layer (in the page's coordinates) and has frames run for it. */
  mount(node: HTMLElement): void;
}

/**
 * The overlay's floating panels (each opened on its own at a piece of text) and the closing of every panel by a press
 * outside it. Panels live in the page's coordinates whatever box their anchor is in, so no container cuts them off.
 */
export class OverlayPanels {
  private readonly panels = new Set<FloatingPanel>();

  constructor(
    private readonly doc: Document,
    private readonly deps: OverlayPanelsDeps,
  ) {}

  get size(): number {
    return this.panels.size;
  }

  /** A panel at `anchor`: open at once with focus in it, following the text as the page scrolls, gone when closed. */
  open(anchor: Anchor, content: PanelContent): PanelHandle {
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
      openOptions: this.deps.openOptions,
      onClose: (returnFocus) => this.close(panel, returnFocus),
    });
    panel.handle = {
      element: panel.view.element,
      get isOpen() {
        return panel.view.isOpen;
      },
      show: (next) => panel.view.show(next),
      close: () => this.close(panel, false),
    };
    panel.view.show(content);
    // Placed before it shows, so it never flashes at the corner.
    panel.view.element.style.visibility = 'hidden';
    this.panels.add(panel);
    this.deps.loop.track(panel);
    this.deps.mount(panel.view.element);
    const open = () => {
      if (this.panels.has(panel)) panel.view.open();
    };
    if (this.deps.layer.mounted) open();
    else void this.deps.layer.ensure().then(open);
    return panel.handle;
  }

  /** Puts every panel in a layer just mounted. */
  mountAll(root: HTMLElement): void {
    for (const panel of this.panels) root.append(panel.view.element);
  }

  closeAll(): void {
    for (const panel of [...this.panels]) this.close(panel, false);
  }

  /** Reads: where each panel's anchor is now. */
  read(viewport: Box, layoutChanged: boolean): PanelPlan[] {
    return [...this.panels].map((panel) => {
      if (layoutChanged) panel.stale = true;
      return [panel, measureAnchor(panel, viewport)] as const;
    });
  }

  /** Writes: each panel at its anchor (`origin`: the layer's box), or closed when its anchor went. */
  write(plans: readonly PanelPlan[], origin: Box, viewport: Box): void {
    for (const [panel, at] of plans) {
      if (!at) {
        this.close(panel, false);
        continue;
      }
      positionPanel(panel.view.element, at, origin, viewport);
      panel.view.element.style.visibility = '';
      if (panel.focusWhenPlaced && panel.view.isOpen) {
        panel.focusWhenPlaced = false;
        panel.view.element.focus({ preventScroll: true });
      }
    }
  }

  /** A press anywhere outside a panel and its badge closes the panel (presses in the layer come retargeted to the host). */
  readonly onPointerDown = (event: Event): void => {
    const path = event.composedPath();
    for (const entry of this.deps.entries) {
      if (entry.view.isOpen && !path.includes(entry.view.panel) && !path.includes(entry.view.button)) {
        entry.view.close();
      }
    }
    for (const panel of this.panels) {
      if (panel.view.isOpen && !path.includes(panel.view.element)) this.close(panel, false);
    }
  };

  private close(panel: FloatingPanel, returnFocus: boolean): void {
    if (!this.panels.delete(panel)) return;
    const hadFocus = panel.view.element.contains(this.deps.layer.mounted?.host.shadowRoot?.activeElement ?? null);
    panel.view.element.remove();
    this.deps.loop.untrack(panel);
    const back = panel.returnFocus as HTMLElement | null;
    if ((returnFocus || hadFocus) && back?.isConnected && typeof back.focus === 'function') {
      back.focus({ preventScroll: true });
    }
  }
}

function measureAnchor(panel: FloatingPanel, viewport: Box): Box | null {
  if (!anchorConnected(panel.anchor)) return null;
  if (panel.stale) {
    panel.chain = clipChain(panel.el).chain;
    panel.stale = false;
  }
  const rect = anchorRect(panel.anchor);
  if (!rect || isEmpty(intersect(rect, clipRect(panel.chain, viewport)))) return null;
  return rect;
}

/** Writes a panel's place (`at`: its badge or text), in the coordinates of `origin`, only what changed. */
export function positionPanel(element: HTMLElement, at: Box, origin: Box, viewport: Box): void {
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
