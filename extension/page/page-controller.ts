import type { ContentScriptContext } from 'wxt/utils/content-script-context';
import { createShadowRootUi, type ShadowRootContentScriptUi } from 'wxt/utils/content-script-ui/shadow-root';
import { copyText } from '../common/clipboard';
import type { CheckOutcome, Problem } from '../common/outcome';
import { BADGE_CSS } from './badge-styles';
import { FieldWatcher } from './field-watcher';
import { InlineBadge } from './inline-badge';

export const BADGE_HOST_TAG = 'dte-eligibility-badge';

const RECHECK_ON_RETURN: ReadonlySet<Problem> = new Set([
  'not_configured',
  'no_key',
  'no_permission',
  'invalid_key',
  'subscription_inactive',
  'unreachable',
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
  ui: Promise<ShadowRootContentScriptUi<InlineBadge>>;
}

/**
 * Ties the field watcher to the badges in one document: a complete postcode in a field gets a badge after it (in
 * its own shadow root) and a check through the background; clearing or removing the field removes the badge.
 */
export class PageController {
  private readonly slots = new Map<HTMLInputElement, Slot>();
  private readonly watcher: FieldWatcher;

  constructor(
    private readonly ctx: ContentScriptContext,
    private readonly doc: Document,
    private readonly deps: PageControllerDeps,
  ) {
    this.watcher = new FieldWatcher(
      doc,
      {
        onPostcode: (field, postcode) => (postcode ? this.show(field, postcode) : this.remove(field)),
        onFieldGone: (field) => this.remove(field),
        onNodesRemoved: () => this.reattach(),
      },
      { debounceMs: deps.debounceMs, ownTag: BADGE_HOST_TAG },
    );
    ctx.onInvalidated(() => this.stop());
  }

  start(): void {
    if (this.ctx.isInvalid || this.watcher.running) return;
    this.watcher.start();
    this.doc.addEventListener('visibilitychange', this.onVisible);
  }

  stop(): void {
    this.watcher.stop();
    this.doc.removeEventListener('visibilitychange', this.onVisible);
    for (const field of [...this.slots.keys()]) this.remove(field);
  }

  private show(field: HTMLInputElement, postcode: string): void {
    let slot = this.slots.get(field);
    if (!slot) {
      const created: Slot = { postcode, seq: 0, ui: Promise.resolve(null as never) };
      created.ui = this.createUi(field, created);
      this.slots.set(field, created);
      slot = created;
    }
    slot.postcode = postcode;
    const seq = ++slot.seq;
    const current = slot;
    void current.ui.then(async (ui) => {
      const badge = ui.mounted;
      if (!badge || this.slots.get(field) !== current || current.seq !== seq) return;
      badge.show({ pending: postcode });
      const outcome = await this.deps.check(postcode);
      if (this.slots.get(field) === current && current.seq === seq) {
        current.last = outcome;
        badge.show(outcome);
      }
    });
  }

  private createUi(field: HTMLInputElement, slot: Slot): Promise<ShadowRootContentScriptUi<InlineBadge>> {
    return createShadowRootUi<InlineBadge>(this.ctx, {
      name: BADGE_HOST_TAG,
      position: 'inline',
      anchor: field,
      append: 'after',
      mode: 'open',
      css: BADGE_CSS,
      onMount: (container) => {
        const badge = new InlineBadge(container, {
          copy: (text) => copyText(text, container),
          openOptions: () => this.deps.openOptions(),
          retry: () => {
            if (this.slots.get(field) === slot) this.show(field, slot.postcode);
          },
        });
        return badge;
      },
      onRemove: (badge) => badge?.destroy(),
    }).then((ui) => {
      if (this.slots.get(field) === slot && field.isConnected) ui.mount();
      return ui;
    });
  }

  private remove(field: HTMLInputElement): void {
    const slot = this.slots.get(field);
    if (!slot) return;
    this.slots.delete(field);
    void slot.ui.then((ui) => ui.remove());
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
    for (const [field, slot] of this.slots) {
      if (slot.last && !slot.last.ok && RECHECK_ON_RETURN.has(slot.last.problem)) this.show(field, slot.postcode);
    }
  }

  /** A framework that re-renders a form may drop the badge's host while keeping the field: put it back. */
  private reattach(): void {
    for (const [field, slot] of this.slots) {
      void slot.ui.then((ui) => {
        if (this.slots.get(field) === slot && field.isConnected && !ui.shadowHost.isConnected) {
          ui.remove();
          ui.mount();
          this.show(field, slot.postcode);
        }
      });
    }
  }
}
