import type { ContentScriptContext } from 'wxt/utils/content-script-context';
import type { CheckOutcome, Problem } from '../../ui/result/outcome';
import { FieldWatcher } from './field-watcher';
import { anchorElement, isRange } from './overlay/geometry';
import { PageChecks, type Waiter } from './page-checks';
import {
  Overlay,
  OVERLAY_HOST_TAG,
  type Anchor,
  type BadgeHandle,
  type PanelContent,
  type PanelHandle,
} from './overlay/overlay';

/** The tag of the extension's own element in a page: the overlay's one host (the field watcher skips it). */
export const BADGE_HOST_TAG = OVERLAY_HOST_TAG;

const RECHECK_ON_RETURN: ReadonlySet<Problem> = new Set([
  'not_configured',
  'no_key',
  'no_permission',
  'invalid_key',
  'subscription_inactive',
  'unreachable',
  'redirected',
  'server_error',
]);

export interface PageControllerDeps {
  /** Every failure comes back as a CheckOutcome: this never rejects (see checkThroughBackground). */
  check(postcode: string): Promise<CheckOutcome>;
  openOptions(): void;
  debounceMs?: number;
  /** Distinct postcodes checked per minute without a person asking (see PageChecks). */
  checksPerMinute?: number;
}

interface Slot {
  anchor: Anchor;
  postcode: string;
  last?: CheckOutcome;
  /** Bumped on every new check so a slow answer for an old value never overwrites a newer one. */
  seq: number;
  /** Null until the field comes near the view, on a page of many postcodes (see EAGER_BADGES). */
  badge: BadgeHandle | null;
  /** What the badge shows (or will show once made). */
  shown?: CheckOutcome | { pending: string };
  /** The element whose visibility decides whether its postcode is checked first. */
  el: Element | null;
  /** In view (with a margin), as the IntersectionObserver last said; undefined before it has. */
  visible?: boolean;
  /** What waits for the answer for `postcode` (replaced when the postcode changes). */
  waiter?: Waiter;
}

/** A field this near the viewport counts as in view: it is checked before the page is scrolled to it. */
const VIEW_MARGIN = '200px';

/**
 * Badges made at once, wherever their fields are. Past this many (a grid of thousands of rows), a field gets its badge
 * when it comes near the view: thousands of badges laid out and placed would hold the page up for seconds, for
 * badges nobody can see.
 */
const EAGER_BADGES = 200;

/** A badge the page controller shows for a postcode in displayed text, until `remove` (or until the text goes). */
export interface TextBadge {
  remove(): void;
}

/**
 * Ties the field watcher to the overlay in one document: a complete postcode in a field gets a badge beside it and
 * a check through the background; clearing or removing the field removes the badge. Postcodes found in displayed
 * text (`showTextPostcode`) get the same badges; a checked selection (`showSelection`) gets a panel of its own.
 */
export class PageController {
  private readonly slots = new Map<Anchor, Slot>();
  /** Slots by the element whose visibility they follow (several postcodes may be in one paragraph). */
  private readonly byElement = new Map<Element, Set<Slot>>();
  private visibility: IntersectionObserver | null = null;
  private readonly checks: PageChecks;
  private readonly watcher: FieldWatcher;
  private readonly overlay: Overlay;
  private selectionPanel: PanelHandle | null = null;

  constructor(
    private readonly ctx: ContentScriptContext,
    private readonly doc: Document,
    private readonly deps: PageControllerDeps,
  ) {
    this.overlay = new Overlay(ctx, doc, { openOptions: () => this.deps.openOptions() });
    this.checks = new PageChecks({ check: (postcode) => this.deps.check(postcode), perMinute: deps.checksPerMinute });
    this.watcher = new FieldWatcher(
      doc,
      {
        // A postcode typed in (the field has focus) is a person's own request: the page's minute does not hold it.
        onPostcode: (field, postcode) =>
          postcode ? this.show(field, postcode, field.matches(':focus')) : this.remove(field),
        onPending: (field, postcode) => this.pending(field, postcode),
        onFieldGone: (field) => this.remove(field),
      },
      { debounceMs: deps.debounceMs, ownTag: OVERLAY_HOST_TAG },
    );
    ctx.onInvalidated(() => this.stop());
  }

  get running(): boolean {
    return this.watcher.running;
  }

  start(): void {
    if (this.ctx.isInvalid || this.watcher.running) return;
    this.watcher.start();
    this.doc.addEventListener('visibilitychange', this.onVisible);
  }

  /** Switched off (for this site, or the extension went away): every badge and panel goes, and the layer with them. */
  stop(): void {
    this.watcher.stop();
    this.doc.removeEventListener('visibilitychange', this.onVisible);
    for (const anchor of [...this.slots.keys()]) this.remove(anchor);
    this.checks.stop();
    this.visibility?.disconnect();
    this.visibility = null;
    this.selectionPanel = null;
    this.overlay.clear();
  }

  /**
   * A postcode found in the page's displayed text: a badge right after it (the range's last line box), checked like a
   * field's. Nothing while the controller is stopped. The badge goes when the text leaves the document, or on
   * `remove()`; calling again for the same range re-checks.
   */
  showTextPostcode(range: Range, postcode: string): TextBadge {
    const remove = () => this.remove(range);
    if (this.watcher.running) this.show(range, postcode);
    return { remove };
  }

  /**
   * The answer for a selection (context menu): a panel at the selection, open with focus in it. With `outcome` (the
   * background's check, or a notice such as "No postcode in the selection") it is shown as it is; without one the
   * postcode is checked here. Works while stopped: "switched off for this site" is itself an answer to show. A new
   * selection's panel replaces the previous one.
   */
  showSelection(range: Range, postcode: string | null, outcome?: PanelContent): PanelHandle {
    this.selectionPanel?.close();
    const content: PanelContent =
      outcome ?? (postcode ? { pending: postcode } : { notice: 'no_postcode', text: 'No postcode in the selection' });
    const panel = this.overlay.openPanelAt(range, content);
    this.selectionPanel = panel;
    if (!outcome && postcode) void this.deps.check(postcode).then((result) => panel.show(result));
    return panel;
  }

  /** `now`: a person asked (pressed a badge that says "not checked yet"), so the page's minute does not hold it back. */
  private show(anchor: Anchor, postcode: string, now = false): void {
    const slot = this.slots.get(anchor) ?? this.createSlot(anchor, postcode);
    if (slot.waiter) this.checks.cancel(slot.postcode, slot.waiter);
    slot.postcode = postcode;
    const seq = ++slot.seq;
    const waiter: Waiter = {
      visible: () => slot.visible,
      deliver: (outcome) => {
        if (this.slots.get(anchor) !== slot || slot.seq !== seq) return;
        if ('ok' in outcome) slot.last = outcome;
        slot.shown = outcome;
        slot.badge?.show(outcome);
      },
    };
    slot.waiter = waiter;
    this.checks.request(postcode, waiter, now);
  }

  private createSlot(anchor: Anchor, postcode: string): Slot {
    const slot: Slot = { anchor, postcode, seq: 0, el: anchorElement(anchor), badge: null };
    this.slots.set(anchor, slot);
    if (this.slots.size <= EAGER_BADGES || !slot.el) this.addBadge(anchor, slot);
    if (slot.el) {
      let set = this.byElement.get(slot.el);
      if (!set) {
        set = new Set();
        this.byElement.set(slot.el, set);
        this.observeVisibility(slot.el);
      }
      set.add(slot);
    }
    return slot;
  }

  private addBadge(anchor: Anchor, slot: Slot): void {
    slot.badge = this.overlay.add(anchor, {
      retry: () => {
        if (this.slots.get(anchor) === slot) this.show(anchor, slot.postcode);
      },
      // Pressing a badge that says "not checked yet" checks it.
      onActivate: () => {
        if (this.slots.get(anchor) === slot && slot.last?.ok === false && slot.last.problem === 'not_checked_yet') {
          this.show(anchor, slot.postcode, true);
        }
      },
      // A field's removal is the watcher's to report; text has no watcher.
      onGone: isRange(anchor) ? () => this.remove(anchor) : undefined,
    });
    if (slot.shown) slot.badge.show(slot.shown);
  }

  private observeVisibility(el: Element): void {
    this.visibility ??= new IntersectionObserver(
      (records) => {
        let cameIntoView = false;
        for (const record of records) {
          for (const slot of this.byElement.get(record.target) ?? []) {
            if (record.isIntersecting && !slot.visible) cameIntoView = true;
            slot.visible = record.isIntersecting;
            if (slot.visible && !slot.badge) this.addBadge(slot.anchor, slot);
          }
        }
        if (cameIntoView) this.checks.schedulePump();
      },
      { rootMargin: VIEW_MARGIN },
    );
    this.visibility.observe(el);
  }

  /**
   * A field whose badge showed the answer for another postcode now holds `postcode`, to be checked once typing
   * pauses: the badge (and its panel, if open) says it is checking, and an answer still on its way for the old
   * postcode is dropped. A field without a badge gets one when its postcode is checked.
   */
  private pending(anchor: Anchor, postcode: string): void {
    const slot = this.slots.get(anchor);
    if (!slot) return;
    if (slot.waiter) this.checks.cancel(slot.postcode, slot.waiter);
    slot.waiter = undefined;
    slot.seq++;
    slot.postcode = postcode;
    slot.last = undefined;
    slot.shown = { pending: postcode };
    slot.badge?.show(slot.shown);
  }

  private remove(anchor: Anchor): void {
    const slot = this.slots.get(anchor);
    if (!slot) return;
    this.slots.delete(anchor);
    if (slot.waiter) this.checks.cancel(slot.postcode, slot.waiter);
    const set = slot.el ? this.byElement.get(slot.el) : undefined;
    if (set?.delete(slot) && set.size === 0) {
      this.byElement.delete(slot.el!);
      this.visibility?.unobserve(slot.el!);
    }
    slot.badge?.remove();
  }

  /**
   * Coming back to the tab (say from the options page, after saving a key) re-asks for badges that showed a
   * setup or connection problem, so they do not keep saying "Set API key in options" after it was set.
   */
  private readonly onVisible = (): void => {
    if (this.doc.visibilityState === 'visible') this.recheckProblems();
  };

  /** Asks again for every badge that shows a setup or connection problem (the settings changed). */
  recheckProblems(): void {
    this.checks.forget();
    if (!this.watcher.running) return;
    for (const [anchor, slot] of this.slots) {
      if (slot.last && !slot.last.ok && RECHECK_ON_RETURN.has(slot.last.problem)) this.show(anchor, slot.postcode);
    }
  }
}
