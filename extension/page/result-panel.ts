import { h } from '../../ui/common/dom';
import type { CheckOutcome } from '../../ui/result/outcome';
import { badgeView } from '../../ui/result/badge-view';
import { renderResultView, type ResultViewOptions } from '../../ui/result/result-view';

/** A message in words instead of a check (a selection without a postcode, a site switched off). */
export interface PanelNotice {
  notice: string;
  text: string;
}

/** What a panel shows: a check's result, a check under way, or a notice. */
export type PanelContent = CheckOutcome | { pending: string } | PanelNotice;

let panelSeq = 0;

export interface ResultPanelOptions extends Omit<ResultViewOptions, 'now'> {
  /** Close or Escape was used: `returnFocus` is true when focus should go back where the panel was opened from. */
  onClose(returnFocus: boolean): void;
}

/**
 * The dialog that shows a result in full (headline, decision-support steps, declarations, proforma with Copy), as
 * plain DOM inside the overlay's shadow root. It neither positions nor opens itself: its badge or the overlay does.
 */
export class ResultPanel {
  readonly element: HTMLDivElement;
  readonly id: string;
  private readonly body: HTMLDivElement;
  private content: PanelContent | null = null;

  constructor(
    private readonly doc: Document,
    private readonly options: ResultPanelOptions,
  ) {
    this.id = `dte-panel-${++panelSeq}`;
    this.body = h(doc, 'div', { class: 'dte-panel-body' });
    const close = h(doc, 'button', { type: 'button', class: 'dte-close' }, 'Close');
    this.element = h(
      doc,
      'div',
      {
        id: this.id,
        class: 'dte-panel',
        role: 'dialog',
        'aria-label': 'Telehealth disaster eligibility',
        hidden: true,
      },
      h(doc, 'div', { class: 'dte-panel-head' }, h(doc, 'span', {}, 'Telehealth disaster eligibility'), close),
      this.body,
    );
    close.addEventListener('click', () => this.options.onClose(true));
    this.element.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        this.options.onClose(true);
      }
    });
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  show(content: PanelContent): void {
    this.content = content;
    if (this.isOpen) this.paint();
  }

  /** Shows the panel and moves focus into it, so keyboard users land on its content. */
  open(): void {
    this.paint();
    this.element.hidden = false;
    this.element.setAttribute('tabindex', '-1');
    this.element.focus({ preventScroll: true });
  }

  hide(): void {
    this.element.hidden = true;
  }

  private paint(): void {
    const content = this.content;
    let view: HTMLElement;
    if (!content || 'pending' in content) {
      view = h(this.doc, 'p', { class: 'dte-result' }, 'Checking…');
    } else if ('notice' in content) {
      view = h(
        this.doc,
        'section',
        { class: 'dte-result dte-tone-neutral', 'data-notice': content.notice },
        h(
          this.doc,
          'p',
          { class: 'dte-status' },
          h(this.doc, 'span', { class: 'dte-icon', 'aria-hidden': 'true' }, '!'),
          ' ',
          content.text,
        ),
      );
    } else {
      view = renderResultView(this.doc, content, this.options);
    }
    this.body.replaceChildren(view);
  }
}

/** The words a panel's content comes down to, for a badge or a title. */
export function contentLabel(content: PanelContent): string {
  return 'notice' in content ? content.text : badgeView(content).label;
}
