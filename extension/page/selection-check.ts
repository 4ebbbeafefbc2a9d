import type { SelectionNotice, SelectionResult } from '../common/messaging';
import type { CheckOutcome } from '../../ui/result/outcome';

/** Shows a selection's result (or notice) in a panel anchored at `range`: the overlay layer's job. */
export type ShowSelectionResult = (
  range: Range,
  postcode: string | null,
  outcome: CheckOutcome | SelectionNotice,
) => void;

export function isSelectionNotice(outcome: CheckOutcome | SelectionNotice): outcome is SelectionNotice {
  return 'notice' in outcome;
}

function isTextField(element: Element | null): element is HTMLInputElement | HTMLTextAreaElement {
  return element?.tagName === 'INPUT' || element?.tagName === 'TEXTAREA';
}

/**
 * Where the user's selection is, as a Range to anchor a panel at (a copy: the page may change its selection). Text
 * selected inside a text field has no Range of its own, so the field is the anchor. Null when nothing is selected
 * any more.
 */
export function selectionAnchor(win: Window): Range | null {
  const doc = win.document;
  const active = doc.activeElement;
  if (isTextField(active)) {
    const { selectionStart, selectionEnd } = active;
    if (selectionStart !== null && selectionEnd !== null && selectionStart !== selectionEnd) {
      const range = doc.createRange();
      range.selectNode(active);
      return range;
    }
  }
  const selection = win.getSelection();
  if (!selection || selection.rangeCount === 0) return null;
  const range = selection.getRangeAt(0);
  return range.collapsed ? null : range.cloneRange();
}

/**
 * The content script's side of `showSelectionResult`: finds the current selection in this frame and has `show` put
 * the result there. Returns whether it was shown (the message's answer to the background).
 */
export function handleSelectionResult(
  message: SelectionResult,
  show: ShowSelectionResult,
  win: Window = window,
): boolean {
  const range = selectionAnchor(win);
  if (!range) return false;
  show(range, message.postcode, message.outcome);
  return true;
}
