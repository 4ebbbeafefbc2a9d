import { TextPostcodeWatcher, type TextPostcode } from './address-text';
import { OVERLAY_HOST_TAG } from './overlay/overlay';
import type { PageController, TextBadge } from './page-controller';

/**
 * Badges on postcodes shown as text (a patient banner, a summary card): the address finder's watcher reports what
 * appears and goes, the page controller puts each through the same check and overlay as a field's postcode.
 * Switched on and off per site (the popup's "Check postcodes in page text on this site").
 */
export class PageTextBadges {
  private readonly badges = new Map<TextPostcode, TextBadge>();
  private readonly watcher: TextPostcodeWatcher;

  constructor(doc: Document, controller: PageController) {
    this.watcher = new TextPostcodeWatcher(
      doc,
      {
        onFound: (found) => {
          for (const text of found) this.badges.set(text, controller.showTextPostcode(text.range, text.postcode));
        },
        onGone: (gone) => {
          for (const text of gone) {
            this.badges.get(text)?.remove();
            this.badges.delete(text);
          }
        },
      },
      { ownTag: OVERLAY_HOST_TAG },
    );
  }

  start(): void {
    this.watcher.start();
  }

  /** Stops watching; every badge it made goes (the watcher reports them all gone). */
  stop(): void {
    this.watcher.stop();
  }
}
