/**
 * Which inputs on a page hold a postcode: a text-like input whose label, name, id, placeholder,
 * aria-label (or aria-labelledby) or `autocomplete="postal-code"` says so. Written against the plain DOM, without
 * layout or computed style, so one check is a handful of attribute reads and never forces a style recalculation.
 */
import { drawnLabel } from './drawn-label';
import { isTextLikeInput, LabelIndex, markupLabels, nearbyCaption } from './field-markup';
import { labelNamesPostcode, mentionsPostcode, NAMES_STATE, namesStateAndPostcode, STATE_AND_PC } from './label-words';
import { pairFrom, partnerOfSharedLabel, postcodeOfPair, siblingControls } from './shared-label';

/** `autocomplete` tokens, e.g. "shipping postal-code" or "section-patient billing postal-code". */
function autocompleteSaysPostcode(input: Element): boolean {
  const value = input.getAttribute('autocomplete');
  if (!value) return false;
  return value.toLowerCase().split(/\s+/).includes('postal-code');
}

/** Whether the label drawn next to `input` makes it a postcode field. */
function drawnLabelGivesPostcode(input: Element, labels: LabelIndex, options: PostcodeFieldOptions): boolean {
  const drawn = drawnLabel(input, options.skipTag);
  if (!drawn) return false;
  if (drawn.owner === input) return labelGivesPostcode(drawn.text, input, labels) === true;
  // A shared "State / Postcode" label is closest to the state select; the input right after it takes the postcode.
  if (!namesStateAndPostcode(drawn.text)) return false;
  const controls = siblingControls(drawn.owner);
  return (
    controls[controls.indexOf(drawn.owner) + 1] === input && postcodeOfPair(drawn.text, [drawn.owner, input]) === input
  );
}

export interface PostcodeFieldOptions {
  /**
   * Look for a label drawn next to an input that has none in the markup (reads layout, and only for such inputs
   * with a postcode-naming text nearby). On by default.
   */
  layout?: boolean;
  /** Elements never looked into (the extension's own). */
  skipTag?: (el: Element) => boolean;
  /** The document or shadow root the input is in, when the caller knows it (saves a lookup per input). */
  tree?: Document | ShadowRoot;
}

/**
 * The web component an unlabelled input is the only text input of (`<my-postcode name="postcode">` holding one
 * `<input>` in its shadow root), whose own name and labels then speak for the input.
 */
function singleInputHost(input: Element): Element | null {
  const root = input.getRootNode() as ShadowRoot;
  if (root.nodeType !== 11 || !root.host) return null;
  const inputs = root.querySelectorAll('input');
  let textLike = 0;
  for (let i = 0; i < inputs.length && textLike < 2; i++) if (isTextLikeInput(inputs[i]!)) textLike++;
  return textLike === 1 ? root.host : null;
}

/** Whether a component's name or labels name a postcode; null when it has none of them to go by. */
function hostSaysPostcode(host: Element, labels: LabelIndex): boolean | null {
  if (mentionsPostcode(host.getAttribute('name')) || mentionsPostcode(host.getAttribute('id'))) return true;
  const texts = markupLabels(host, labels);
  for (const attribute of ['label', 'placeholder']) {
    const value = host.getAttribute(attribute);
    if (value) texts.push(value);
  }
  if (texts.length === 0) return null;
  return texts.some((text) => labelNamesPostcode(text) && !namesStateAndPostcode(text));
}

/**
 * Whether a label text makes `input` a postcode field: true for a postcode label, or for a shared "State / Postcode"
 * label when the input is the postcode of the pair; false for a shared label given to the other control of the pair;
 * null for a label that does not name a postcode.
 */
function labelGivesPostcode(text: string | null, input: Element, labels: LabelIndex): boolean | null {
  if (!text) return null;
  // Most labels name something else: one test of the usual kind settles them.
  const names = labelNamesPostcode(text);
  if (!names && !STATE_AND_PC.test(text)) return null;
  if (NAMES_STATE.test(text)) {
    const wrapping = input.closest('label');
    const inside =
      wrapping && !wrapping.hasAttribute('for') ? wrapping.querySelectorAll('input, select, textarea') : null;
    const pair = inside && inside.length > 1 ? Array.from(inside) : pairFrom(input, labels);
    return postcodeOfPair(text, pair) === input;
  }
  return names ? true : null;
}

/**
 * Whether `el` is an input that holds a postcode, by its own attributes first and its labels second. Pass the same
 * LabelIndex for every input of one batch (see LabelIndex); without one, a fresh index is built for this input.
 */
export function isPostcodeField(
  el: Element,
  labels: LabelIndex = new LabelIndex(el.ownerDocument),
  options: PostcodeFieldOptions = {},
): el is HTMLInputElement {
  if (!isTextLikeInput(el)) return false;
  if (autocompleteSaysPostcode(el)) return true;
  if (mentionsPostcode(el.getAttribute('name')) || mentionsPostcode(el.getAttribute('id'))) return true;
  if (
    labelGivesPostcode(el.getAttribute('placeholder'), el, labels) ||
    labelGivesPostcode(el.getAttribute('title'), el, labels)
  ) {
    return true;
  }
  const own = markupLabels(el, labels, options.tree);
  if (own.length > 0) {
    for (const text of own) if (labelGivesPostcode(text, el, labels) === true) return true;
    return false;
  }
  const host = singleInputHost(el);
  const hostVerdict = host ? hostSaysPostcode(host, labels) : null;
  if (hostVerdict !== null) return hostVerdict;
  // Only a field with no label of its own borrows the caption beside it, or its neighbour's shared label, or the
  // label drawn next to it.
  const caption = nearbyCaption(el);
  if (caption) return labelGivesPostcode(caption, el, labels) === true;
  if (partnerOfSharedLabel(el, labels)) return true;
  return options.layout !== false && drawnLabelGivesPostcode(el, labels, options);
}
