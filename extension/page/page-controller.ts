import type { ContentScriptContext } from 'wxt/utils/content-script-context';
import type { CheckOutcome, Problem } from '../../ui/result/outcome';
import { FieldWatcher } from './field-watcher';
import { isRange } from './overlay-geometry';
import {
  Overlay,
  OVERLAY_HOST_TAG,
  type Anchor,
  type BadgeHandle,
  type PanelContent,
  type PanelHandle,
} from './overlay';

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
}

interface Slot {
  postcode: string;
  last?: CheckOutcome;
  /** Bumped on every new check so a slow answer for an old value never overwrites a newer one. */
  seq: number;
  badge: BadgeHandle;
}

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
  private readonly watcher: FieldWatcher;
  private readonly overlay: Overlay;
  private selectionPanel: PanelHandle | null = null;

  constructor(
    private readonly ctx: ContentScriptContext,
    private readonly doc: Document,
    private readonly deps: PageControllerDeps,
  ) {
    this.overlay = new Overlay(ctx, doc, { openOptions: () => this.deps.openOptions() });
    this.watcher = new FieldWatcher(
      doc,
      {
        onPostcode: (field, postcode) => (postcode ? this.show(field, postcode) : this.remove(field)),
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

  private show(anchor: Anchor, postcode: string): void {
    let slot = this.slots.get(anchor);
    if (!slot) {
      const created: Slot = {
        postcode,
        seq: 0,
        badge: this.overlay.add(anchor, {
          retry: () => {
            if (this.slots.get(anchor) === created) this.show(anchor, created.postcode);
          },
          // A field's removal is the watcher's to report; text has no watcher.
          onGone: isRange(anchor) ? () => this.remove(anchor) : undefined,
        }),
      };
      this.slots.set(anchor, created);
      slot = created;
    }
    slot.postcode = postcode;
    const seq = ++slot.seq;
    const current = slot;
    current.badge.show({ pending: postcode });
    void this.deps.check(postcode).then((outcome) => {
      if (this.slots.get(anchor) === current && current.seq === seq) {
        current.last = outcome;
        current.badge.show(outcome);
      }
    });
  }

  /**
   * A field whose badge showed the answer for another postcode now holds `postcode`, to be checked once typing
   * pauses: the badge (and its panel, if open) says it is checking, and an answer still on its way for the old
   * postcode is dropped. A field without a badge gets one when its postcode is checked.
   */
  private pending(anchor: Anchor, postcode: string): void {
    const slot = this.slots.get(anchor);
    if (!slot) return;
    slot.seq++;
    slot.postcode = postcode;
    slot.last = undefined;
    slot.badge.show({ pending: postcode });
  }

  private remove(anchor: Anchor): void {
    const slot = this.slots.get(anchor);
    if (!slot) return;
    this.slots.delete(anchor);
    slot.badge.remove();
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
    if (!this.watcher.running) return;
    for (const [anchor, slot] of this.slots) {
      if (slot.last && !slot.last.ok && RECHECK_ON_RETURN.has(slot.last.problem)) this.show(anchor, slot.postcode);
    }
  }
}
