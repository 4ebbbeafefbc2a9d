import type { ContentScriptContext } from 'wxt/utils/content-script-context';
import { copyText } from '../../../ui/common/clipboard';
import { h } from '../../../ui/common/dom';
import { InlineBadge } from '../inline-badge';
import { newEntry, type BadgeHandle, type BadgeOptions, type Entry } from './entry';
import { TabOrder } from './focus';
import { FrameLoop } from './frame-loop';
import { anchorElement, isRange, type Anchor } from './geometry';
import { OverlayLayer, type MountedLayer } from './layer';
import { OverlayPanels, type PanelHandle } from './panels';
import { BadgePlacer } from './placement';
import type { PanelContent } from '../result-panel';

export type { BadgeHandle, BadgeOptions } from './entry';
export type { Anchor } from './geometry';
export { OVERLAY_HOST_TAG } from './layer';
export type { PanelHandle } from './panels';
export type { PanelContent, PanelNotice } from '../result-panel';

export interface OverlayOptions {
  /** The "Open options" button of setup problems. */
  openOptions?(): void;
}

/**
 * The extension's one layer over a document: every badge and panel of the document lives in one open shadow root
 * under one host at the end of `<body>`, absolutely positioned from its anchor's box. The page's own boxes never
 * change: nothing is inserted among them, and the host takes no room (absolutely positioned, zero size, no pointer
 * events, style-isolated). Inside, badges of fields that only move with the page are in the page's coordinates (a
 * page scroll carries them, untouched); badges of fields in scrolling or clipping containers are in a fixed box, each
 * container's inside a clip box over the container, and follow the container's scroll by transform alone; fixed or
 * sticky fields' badges are in the fixed box too. Panels are in the page's coordinates, never cut off.
 *
 * Its parts: the layer (layer.ts), the tracker that asks for frames (frame-loop.ts), the badges'
 * placement each frame (placement.ts), the panels (panels.ts) and the Tab order (focus.ts).
 */
export class Overlay {
  private readonly entries = new Set<Entry>();
  private readonly layer: OverlayLayer;
  private readonly loop: FrameLoop;
  private readonly placer: BadgePlacer;
  private readonly panels: OverlayPanels;
  private readonly tabOrder: TabOrder;
  private destroyed = false;

  constructor(
    ctx: ContentScriptContext,
    private readonly doc: Document,
    private readonly options: OverlayOptions = {},
  ) {
    this.layer = new OverlayLayer(ctx, doc, {
      destroyed: () => this.destroyed,
      onMount: (layer) => this.onMount(layer),
    });
    this.tabOrder = new TabOrder(doc, this.layer, this.entries);
    this.placer = new BadgePlacer(doc, this.entries);
    this.loop = new FrameLoop(doc, {
      frame: () => this.frame(),
      destroyed: () => this.destroyed,
      host: () => this.layer.mounted?.host ?? null,
      followsPage: () => this.placer.followsPage || this.panels.size > 0,
      onKey: this.tabOrder.onPageKey,
      onPointerDown: (event) => this.panels.onPointerDown(event),
    });
    this.panels = new OverlayPanels(doc, {
      layer: this.layer,
      loop: this.loop,
      entries: this.entries,
      openOptions: options.openOptions,
      mount: (node) => this.mountInLayer(node),
    });
    ctx.onInvalidated(() => this.destroy());
  }

  /** A badge beside `anchor`: a field (right of it, or inside its empty right end, or below) or a range of text. */
  add(anchor: Anchor, options: BadgeOptions = {}): BadgeHandle {
    if (this.destroyed) throw new Error('The overlay was destroyed');
    const wrapper = h(this.doc, 'div', { class: 'dte-item' });
    const entry = newEntry(anchor, anchorElement(anchor) ?? this.doc.documentElement, wrapper, options);
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
        this.loop.schedule();
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
    button.addEventListener('keydown', (event) => this.tabOrder.onBadgeKey(entry, event));
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
        this.loop.schedule();
      },
      open: () => {
        if (entry.placed) entry.view.open();
      },
      close: () => entry.view.close(),
      remove: () => this.removeEntry(entry),
    };
    this.entries.add(entry);
    this.loop.track(entry);
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
    return this.panels.open(anchor, content);
  }

  /**
   * Removes every badge and panel and the layer itself; listeners and observers go with them. The overlay can be
   * used again (a site switched back on); the next badge makes a new layer.
   */
  clear(): void {
    for (const entry of [...this.entries]) this.removeEntry(entry);
    this.panels.closeAll();
    this.loop.unlisten();
    this.layer.remove();
    this.placer.clear();
  }

  /** Clears the overlay for good (the extension context went away). */
  destroy(): void {
    this.destroyed = true;
    this.clear();
  }

  private onMount(layer: MountedLayer): void {
    for (const entry of this.entries) layer.root.append(entry.wrapper, entry.view.panel);
    this.panels.mountAll(layer.root);
    this.loop.schedule();
  }

  private mountInLayer(node: HTMLElement): void {
    this.layer.append(node);
    this.loop.listen();
    this.loop.schedule();
  }

  private removeEntry(entry: Entry): void {
    if (!this.entries.delete(entry)) return;
    entry.view.destroy();
    entry.wrapper.remove();
    this.placer.release(entry);
    this.loop.untrack(entry);
  }

  /** One frame: the layer kept in its place, then every read of the badges and panels, then every write. */
  private frame(): void {
    const layer = this.layer.mounted;
    if (!layer) return;
    if (this.layer.displaced()) this.loop.markLayoutChanged();
    this.layer.keepLast();
    const layoutChanged = this.loop.takeLayoutChanged();
    const badges = this.placer.read(layer, layoutChanged);
    const panels = this.panels.read(badges.viewport, layoutChanged);
    this.placer.write(badges);
    this.panels.write(panels, badges.origin, badges.viewport);
    for (const entry of badges.gone) entry.options.onGone?.(entry.handle);
  }
}
