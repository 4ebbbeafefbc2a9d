import { h } from '../common/dom';
import type { CheckOutcome } from '../common/outcome';
import { badgeView } from '../result/badge-view';
import { renderResultView, type ResultViewOptions } from '../result/result-view';

let panelSeq = 0;

export interface InlineBadgeOptions extends Omit<ResultViewOptions, 'now' | 'retry'> {
  retry(): void;
}

/**
 * The badge next to one postcode field and the panel it opens, built inside `container` (the body of a shadow
 * root). Plain DOM, no framework: a page may hold several of these and each costs a few elements.
 */
export class InlineBadge {
  readonly button: HTMLButtonElement;
  readonly panel: HTMLDivElement;
  private readonly body: HTMLDivElement;
  private readonly doc: Document;
  private outcome: CheckOutcome | { pending: string } | null = null;
  private countdown: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly container: HTMLElement,
    private readonly options: InlineBadgeOptions,
  ) {
    this.doc = container.ownerDocument;
    const panelId = `dte-panel-${++panelSeq}`;
    this.button = h(this.doc, 'button', {
      type: 'button',
      class: 'dte-badge',
      'aria-expanded': 'false',
      'aria-controls': panelId,
      'aria-haspopup': 'dialog',
    });
    this.body = h(this.doc, 'div', { class: 'dte-panel-body' });
    const close = h(this.doc, 'button', { type: 'button', class: 'dte-close' }, 'Close');
    this.panel = h(
      this.doc,
      'div',
      {
        id: panelId,
        class: 'dte-panel',
        role: 'dialog',
        'aria-label': 'Telehealth disaster eligibility',
        hidden: true,
      },
      h(
        this.doc,
        'div',
        { class: 'dte-panel-head' },
        h(this.doc, 'span', {}, 'Telehealth disaster eligibility'),
        close,
      ),
      this.body,
    );
    container.append(this.button, this.panel);

    this.button.addEventListener('click', () => (this.isOpen ? this.close() : this.open()));
    close.addEventListener('click', () => this.close(true));
    this.panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        this.close(true);
      }
    });
    this.button.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.isOpen) this.close(true);
    });
  }

  get isOpen(): boolean {
    return !this.panel.hidden;
  }

  get label(): string {
    return this.button.textContent ?? '';
  }

  show(outcome: CheckOutcome | { pending: string }): void {
    this.outcome = outcome;
    this.stopCountdown();
    this.paintBadge();
    if (this.isOpen) this.paintPanel();
    if ('ok' in outcome && !outcome.ok && outcome.problem === 'rate_limited' && outcome.retryAt !== undefined) {
      const retryAt = outcome.retryAt;
      this.countdown = setInterval(() => {
        if (Date.now() >= retryAt) {
          this.stopCountdown();
          this.options.retry();
        } else {
          this.paintBadge();
        }
      }, 1000);
    }
  }

  private paintBadge(): void {
    if (!this.outcome) return;
    const view = badgeView(this.outcome);
    this.button.dataset.tone = view.tone;
    this.button.title = `${view.detail} Press to show details.`;
    this.button.replaceChildren(
      h(this.doc, 'span', { class: 'dte-swatch', 'aria-hidden': 'true' }),
      h(this.doc, 'span', { class: 'dte-icon', 'aria-hidden': 'true' }, view.icon),
      h(this.doc, 'span', { class: 'dte-label' }, view.label),
    );
  }

  private paintPanel(): void {
    this.body.replaceChildren(
      !this.outcome || 'pending' in this.outcome
        ? h(this.doc, 'p', { class: 'dte-result' }, 'Checking…')
        : renderResultView(this.doc, this.outcome, this.options),
    );
  }

  open(): void {
    this.paintPanel();
    this.panel.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    this.place();
    const view = this.doc.defaultView;
    view?.addEventListener('scroll', this.place, { capture: true, passive: true });
    view?.addEventListener('resize', this.place, { passive: true });
    this.doc.addEventListener('pointerdown', this.onOutsidePointer, true);
    // Focus moves into the panel so keyboard users land on its content; Escape or Close bring it back.
    this.panel.setAttribute('tabindex', '-1');
    this.panel.focus({ preventScroll: true });
  }

  close(returnFocus = false): void {
    if (!this.isOpen) return;
    this.panel.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
    const view = this.doc.defaultView;
    view?.removeEventListener('scroll', this.place, { capture: true });
    view?.removeEventListener('resize', this.place);
    this.doc.removeEventListener('pointerdown', this.onOutsidePointer, true);
    if (returnFocus) this.button.focus();
  }

  destroy(): void {
    this.close();
    this.stopCountdown();
    this.container.replaceChildren();
  }

  private stopCountdown(): void {
    if (this.countdown !== null) clearInterval(this.countdown);
    this.countdown = null;
  }

  /** Clicks on the page outside the badge's host close the panel; clicks inside the shadow root are retargeted to the host. */
  private readonly onOutsidePointer = (event: Event): void => {
    const host = (this.container.getRootNode() as ShadowRoot).host;
    if (event.target !== host) this.close();
  };

  /** The panel is `position: fixed` so no overflow:hidden ancestor of the field can clip it. */
  private readonly place = (): void => {
    const view = this.doc.defaultView;
    if (!view || !this.isOpen) return;
    const rect = this.button.getBoundingClientRect();
    const margin = 8;
    const width = Math.min(440, view.innerWidth - 2 * margin);
    const left = Math.max(margin, Math.min(rect.left, view.innerWidth - width - margin));
    const below = view.innerHeight - rect.bottom - margin;
    const above = rect.top - margin;
    const style = this.panel.style;
    style.left = `${left}px`;
    if (below >= 260 || below >= above) {
      style.top = `${rect.bottom + 4}px`;
      style.bottom = '';
      style.maxHeight = `${Math.max(160, below - 4)}px`;
    } else {
      style.top = '';
      style.bottom = `${view.innerHeight - rect.top + 4}px`;
      style.maxHeight = `${Math.max(160, above - 4)}px`;
    }
  };
}
