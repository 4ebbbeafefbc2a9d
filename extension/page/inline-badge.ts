import { h } from '../../ui/common/dom';
import type { CheckOutcome } from '../../ui/result/outcome';
import { badgeView } from '../../ui/result/badge-view';
import type { ResultViewOptions } from '../../ui/result/result-view';
import { ResultPanel } from './result-panel';

export interface InlineBadgeOptions extends Omit<ResultViewOptions, 'now' | 'retry'> {
  retry(): void;
  /** The badge was activated (click, Enter, Space), before its panel opens or closes. */
  onActivate?(): void;
  /** Something that moves or resizes the badge or its panel changed: the words, focus, or the panel opened. */
  onChange?(): void;
}

/**
 * One badge and the panel it opens, built inside `container` (in the overlay, a wrapper of its own inside the
 * overlay's shadow root). Plain DOM, no framework: a page may hold several of these and each costs a few elements.
 * The badge carries its full words as text (its accessible name); its compact form (`data-mode="compact"`: the
 * coloured dot and one word, drawn by CSS) is chosen by whoever places it, and gives way to the full words while it
 * has focus (`data-expanded`).
 */
export class InlineBadge {
  readonly button: HTMLButtonElement;
  readonly panel: HTMLDivElement;
  private readonly view: ResultPanel;
  private readonly doc: Document;
  private outcome: CheckOutcome | { pending: string } | null = null;
  private countdown: ReturnType<typeof setInterval> | null = null;
  private focused = false;

  constructor(
    private readonly container: HTMLElement,
    private readonly options: InlineBadgeOptions,
  ) {
    this.doc = container.ownerDocument;
    this.view = new ResultPanel(this.doc, { ...options, onClose: (returnFocus) => this.close(returnFocus) });
    this.panel = this.view.element;
    this.button = h(this.doc, 'button', {
      type: 'button',
      class: 'dte-badge',
      'aria-expanded': 'false',
      'aria-controls': this.view.id,
      'aria-haspopup': 'dialog',
      'data-mode': 'full',
    });
    container.append(this.button, this.panel);

    this.button.addEventListener('click', () => {
      this.options.onActivate?.();
      if (this.isOpen) this.close();
      else this.open();
    });
    this.button.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.isOpen) this.close(true);
    });
    this.button.addEventListener('focus', () => this.setExpanded(true));
    this.button.addEventListener('blur', () => this.setExpanded(false));
  }

  get isOpen(): boolean {
    return this.view.isOpen;
  }

  get label(): string {
    return this.button.textContent ?? '';
  }

  /** Focused, so showing its full words whatever its form. */
  get expanded(): boolean {
    return this.focused;
  }

  show(outcome: CheckOutcome | { pending: string }): void {
    this.outcome = outcome;
    this.stopCountdown();
    this.paintBadge();
    this.view.show(outcome);
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
      // The compact word is CSS-generated content with empty alternative text: it is neither in textContent nor
      // in the accessible name, which stay the full words.
      h(this.doc, 'span', { class: 'dte-short', 'aria-hidden': 'true', 'data-short': view.short }),
    );
    this.options.onChange?.();
  }

  open(): void {
    this.view.open();
    this.button.setAttribute('aria-expanded', 'true');
    this.options.onChange?.();
  }

  close(returnFocus = false): void {
    if (!this.isOpen) return;
    this.view.hide();
    this.button.setAttribute('aria-expanded', 'false');
    if (returnFocus) this.button.focus({ preventScroll: true });
    this.options.onChange?.();
  }

  destroy(): void {
    this.close();
    this.stopCountdown();
    // Whoever shows the badge may have put its panel elsewhere (the overlay keeps panels out of clipping boxes).
    this.button.remove();
    this.panel.remove();
    this.container.replaceChildren();
  }

  private setExpanded(expanded: boolean): void {
    if (expanded === this.focused) return;
    this.focused = expanded;
    if (expanded) this.button.dataset.expanded = 'true';
    else delete this.button.dataset.expanded;
    this.options.onChange?.();
  }

  private stopCountdown(): void {
    if (this.countdown !== null) clearInterval(this.countdown);
    this.countdown = null;
  }
}
