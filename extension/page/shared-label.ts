import { isTextLikeInput, markupLabels, nearbyCaption, type LabelIndex } from './field-markup';
import { namesStateAndPostcode } from './label-words';

/** A label shared by two controls: "State / Postcode" over a state select and a postcode input. */

/** Controls of a small group: the first ancestor (at most 3 up) holding more than one, if it holds a few only. */
export function siblingControls(el: Element): Element[] {
  let container = el.parentElement;
  for (let level = 0; container && level < 3; level++, container = container.parentElement) {
    const controls = Array.from(container.querySelectorAll('input, select, textarea')).filter(
      (c) => c.tagName !== 'INPUT' || (c as HTMLInputElement).type !== 'hidden',
    );
    if (controls.length > 1) return controls.length <= 8 ? controls : [];
  }
  return [];
}

/** Whether an input looks made for a 4-digit value (its size, length, pattern or keyboard). */
function looksFourDigits(el: Element): boolean {
  if (el.getAttribute('maxlength')?.trim() === '4') return true;
  const size = Number(el.getAttribute('size'));
  if (size > 0 && size <= 5) return true;
  const pattern = el.getAttribute('pattern');
  if (pattern && /\{4\}|\{3,4\}/.test(pattern)) return true;
  const mode = el.getAttribute('inputmode');
  if (mode === 'numeric' || mode === 'decimal') return true;
  return (el.getAttribute('type') ?? '').toLowerCase() === 'number';
}

/**
 * Which control of a pair under a shared "State / Postcode" label takes the postcode: the text input when the other
 * is a select; of two text inputs, the one shaped for 4 digits, or else the one in the postcode's place in the label.
 */
export function postcodeOfPair(label: string, pair: Element[]): Element | null {
  const inputs = pair.filter(isTextLikeInput);
  if (inputs.length <= 1) return inputs[0] ?? null;
  const shaped = inputs.filter(looksFourDigits);
  if (shaped.length === 1) return shaped[0]!;
  const lower = label.toLowerCase();
  const statePos = lower.search(/state|territory/);
  const postcodePos = lower.search(/p\s?[/'’.]?\s?(?:ost)?c|zip/);
  return postcodePos >= 0 && postcodePos < statePos ? inputs[0]! : inputs[inputs.length - 1]!;
}

/** `first` and the control after it, when that one has no label of its own: what a shared label covers. */
export function pairFrom(first: Element, labels: LabelIndex): Element[] {
  const controls = siblingControls(first);
  const next = controls[controls.indexOf(first) + 1];
  if (!next || markupLabels(next, labels).length > 0) return [first];
  return [first, next];
}

/** The texts a control is labelled with, by markup or else by the caption beside it. */
function labelTextsOf(el: Element, labels: LabelIndex): string[] {
  const texts = markupLabels(el, labels);
  if (texts.length > 0) return texts;
  const caption = nearbyCaption(el);
  return caption ? [caption] : [];
}

/** An unlabelled input right after a control labelled "State / Postcode" takes the postcode of the pair. */
export function partnerOfSharedLabel(input: Element, labels: LabelIndex): boolean {
  const controls = siblingControls(input);
  const index = controls.indexOf(input);
  const previous = index > 0 ? controls[index - 1]! : null;
  if (!previous) return false;
  const shared = labelTextsOf(previous, labels).find(namesStateAndPostcode);
  return !!shared && postcodeOfPair(shared, [previous, input]) === input;
}
