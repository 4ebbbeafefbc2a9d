import type { ContentScriptContext } from 'wxt/utils/content-script-context';
import { createShadowRootUi, type ShadowRootContentScriptUi } from 'wxt/utils/content-script-ui/shadow-root';
import { h } from '../../../ui/common/dom';
import { BADGE_CSS } from '../badge-styles';

/** Tag of the overlay's one host element per document (the field watcher never looks inside it). */
export const OVERLAY_HOST_TAG = 'dte-overlay';

/** The layer once it is in the page. */
export interface MountedLayer {
  host: HTMLElement;
  /** Where badges of fields that only move with the page live, and every panel: the page's coordinates. */
  root: HTMLElement;
  /** Inside the layer, a box fixed over the viewport for badges of fields that move against the page. */
  fixed: HTMLElement;
}

export interface OverlayLayerHooks {
  /** The overlay was destroyed: a layer that finishes mounting afterwards is taken away again. */
  destroyed(): boolean;
  /** The layer is in the page: what waited for it goes in. */
  onMount(layer: MountedLayer): void;
}

/**
 * The overlay's layer in one document: one open shadow root under one host at the end of `<body>` (BADGE_CSS says why
 * it takes no room), made when the first badge or panel needs it, and taken away with the last.
 */
export class OverlayLayer {
  private ui: Promise<ShadowRootContentScriptUi<HTMLElement>> | null = null;
  private layer: MountedLayer | null = null;
  private moves: number[] = [];

  constructor(
    private readonly ctx: ContentScriptContext,
    private readonly doc: Document,
    private readonly hooks: OverlayLayerHooks,
  ) {}

  /** The layer's elements, once it is in the page. */
  get mounted(): MountedLayer | null {
    return this.layer;
  }

  ensure(): Promise<ShadowRootContentScriptUi<HTMLElement>> {
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
      if (this.hooks.destroyed() || this.ui !== pending) {
        ui.remove();
        return ui;
      }
      ui.mount();
      const fixed = h(this.doc, 'div', { class: 'dte-fixed' });
      ui.uiContainer.append(fixed);
      this.layer = { host: ui.shadowHost, root: ui.uiContainer, fixed };
      this.hooks.onMount(this.layer);
      return ui;
    });
    this.ui = pending;
    return pending;
  }

  /** Puts `node` in the page's coordinates of the layer, which is made first if need be (`onMount` then adds it). */
  append(node: HTMLElement): void {
    if (this.layer) this.layer.root.append(node);
    else void this.ensure();
  }

  /** Takes the layer out of the page; the next `ensure` makes a new one. */
  remove(): void {
    void this.ui?.then((ui) => ui.remove());
    this.ui = null;
    this.layer = null;
  }

  /** Whether the host is no longer the body's own child (the page removed or moved it). */
  displaced(): boolean {
    const host = this.layer?.host;
    return !!host && (!host.isConnected || host.parentNode !== (this.doc.body ?? this.doc.documentElement));
  }

  /**
   * The host stays the body's last element, above whatever the page appends later (with `moveBefore`, which keeps
   * focus inside it, where the browser has it). A page that keeps moving its own element last wins after a few
   * tries a second, rather than the two of us trading places every frame.
   */
  keepLast(): void {
    const host = this.layer?.host;
    if (!host) return;
    const parent = this.doc.body ?? this.doc.documentElement;
    if (host.parentNode === parent && parent.lastElementChild === host) return;
    const now = performance.now();
    this.moves = this.moves.filter((t) => now - t < 1000);
    if (host.isConnected && host.parentNode === parent && this.moves.length >= 5) return;
    this.moves.push(now);
    moveToEnd(parent, host, host.parentNode === parent);
  }
}

/**
 * Puts `node` last in `parent`: moved atomically with `moveBefore` where the browser has it and `movable` (which keeps
 * focus and state inside the node), appended otherwise.
 */
export function moveToEnd(parent: Element, node: Element, movable: boolean): void {
  const move = (parent as unknown as { moveBefore?(node: Node, child: Node | null): void }).moveBefore;
  if (move && movable) {
    try {
      move.call(parent, node, null);
      return;
    } catch {
      // Not movable atomically here: append below.
    }
  }
  parent.append(node);
}
