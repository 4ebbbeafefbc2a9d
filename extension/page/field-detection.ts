/**
 * Which inputs on a page hold a postcode: a text-like input whose label, name, id, placeholder,
 * aria-label (or aria-labelledby) or `autocomplete="postal-code"` says so. Written against the plain DOM, without
 * layout or computed style, so one check is a handful of attribute reads and never forces a style recalculation.
 */

/** Input types a postcode can be typed into. A missing or unknown `type` is a text input, as browsers treat it. */
const TEXT_LIKE_TYPES = new Set(['text', 'search', 'tel', 'number']);
const NON_TEXT_TYPES = new Set([
  'hidden',
  'password',
  'email',
  'url',
  'checkbox',
  'radio',
  'file',
  'submit',
  'button',
  'reset',
  'image',
  'range',
  'color',
  'date',
  'datetime-local',
  'month',
  'week',
  'time',
]);

/** Longest label-like text read from the surrounding markup; longer text is a paragraph, not a label. */
const MAX_NEARBY_TEXT = 60;

export function isTextLikeInput(el: Element): el is HTMLInputElement {
  if (el.tagName !== 'INPUT') return false;
  const type = (el.getAttribute('type') ?? '').trim().toLowerCase();
  return type === '' || TEXT_LIKE_TYPES.has(type) || !NON_TEXT_TYPES.has(type);
}

/**
 * Whether a piece of label-like text names a postcode: "Postcode", "Post code", "Postal code", "post_code",
 * "txtPostCode", "patient[address][postcode]", "Zip", "zipCode", "PCode". Words are glued together so separators
 * and camelCase do not matter; "zip"/"pcode" must be whole words so "unzip" or "zipper" do not count.
 */
export function mentionsPostcode(text: string | null | undefined): boolean {
  if (!text) return false;
  const lower = text.toLowerCase();
  const glued = lower.replace(/[^a-z]+/g, '');
  if (glued.includes('postcode') || glued.includes('postalcode')) return true;
  if (!lower.includes('zip') && !lower.includes('pcode')) return false;
  const words = text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/);
  return words.some((w) => w === 'zip' || w === 'zipcode' || w === 'pcode');
}

/** `autocomplete` tokens, e.g. "shipping postal-code" or "section-patient billing postal-code". */
function autocompleteSaysPostcode(input: Element): boolean {
  const value = input.getAttribute('autocomplete');
  if (!value) return false;
  return value.toLowerCase().split(/\s+/).includes('postal-code');
}

/**
 * The `<label for=…>` texts of a document, indexed by the id they point at, built on first use. Chrome's
 * `input.labels` (and `querySelector('label[for=…]')`) walk the whole document for every input after a DOM change,
 * which on a 10,000-element page costs 0.2–0.4 ms per input; one pass over the document's labels serves every input
 * of a mutation batch instead. Build a new index for each batch: it does not follow later changes.
 */
export class LabelIndex {
  private byFor: Map<string, Element[]> | null = null;

  constructor(private readonly doc: Document) {}

  /** Texts of the labels associated with `input`: a wrapping `<label>` and any `<label for>` its id. */
  textsFor(input: Element): string[] {
    const texts: string[] = [];
    const wrapping = input.closest('label');
    if (wrapping && !wrapping.hasAttribute('for')) texts.push(wrapping.textContent ?? '');
    const id = input.getAttribute('id');
    if (id) {
      const labels = this.index().get(id);
      if (labels) for (const label of labels) texts.push(label.textContent ?? '');
    }
    return texts;
  }

  /** Labels by their `for`; their text is read only when an input asks, so one pass reads one attribute per label. */
  private index(): Map<string, Element[]> {
    if (this.byFor) return this.byFor;
    const map = new Map<string, Element[]>();
    const labels = this.doc.getElementsByTagName('label');
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!;
      const target = label.getAttribute('for');
      if (!target) continue;
      const list = map.get(target);
      if (list) list.push(label);
      else map.set(target, [label]);
    }
    this.byFor = map;
    return map;
  }
}

function labelledByTexts(input: Element): string[] {
  const ids = input.getAttribute('aria-labelledby');
  if (!ids) return [];
  const doc = input.ownerDocument;
  return ids
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => doc.getElementById(id)?.textContent ?? '');
}

function shortText(node: Node | null): string | null {
  if (!node) return null;
  if (node.nodeType === 1) {
    const tag = (node as Element).tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'SCRIPT' || tag === 'STYLE') return null;
  } else if (node.nodeType !== 3) {
    return null;
  }
  const text = (node.textContent ?? '').trim();
  return text.length > 0 && text.length <= MAX_NEARBY_TEXT ? text : null;
}

/**
 * Label-like text next to an unlabelled input, as older practice software lays forms out: a caption cell before the
 * field's cell (`<td>Postcode:</td><td><input></td>`), or a short caption just before the input
 * (`<span>Postcode</span> <input>`). Only the nearest caption counts, so a neighbouring field's caption never does.
 */
export function nearbyCaption(input: Element): string | null {
  const parent = input.parentElement;
  if (parent && (parent.tagName === 'TD' || parent.tagName === 'TH') && parent.firstElementChild === input) {
    const caption = shortText(parent.previousElementSibling);
    if (caption) return caption;
  }
  let node: Node | null = input.previousSibling;
  for (let steps = 0; node && steps < 3; steps++, node = node.previousSibling) {
    if (node.nodeType === 3 && !(node.textContent ?? '').trim()) continue;
    return shortText(node);
  }
  return null;
}

/**
 * Whether `el` is an input that holds a postcode, by its own attributes first and its labels second. Pass the same
 * LabelIndex for every input of one batch (see LabelIndex); without one, a fresh index is built for this input.
 */
export function isPostcodeField(
  el: Element,
  labels: LabelIndex = new LabelIndex(el.ownerDocument),
): el is HTMLInputElement {
  if (!isTextLikeInput(el)) return false;
  if (autocompleteSaysPostcode(el)) return true;
  if (
    mentionsPostcode(el.getAttribute('name')) ||
    mentionsPostcode(el.getAttribute('id')) ||
    mentionsPostcode(el.getAttribute('placeholder')) ||
    mentionsPostcode(el.getAttribute('aria-label')) ||
    mentionsPostcode(el.getAttribute('title'))
  ) {
    return true;
  }
  const labelled = labelledByTexts(el);
  if (labelled.some(mentionsPostcode)) return true;
  const texts = labels.textsFor(el);
  if (texts.some(mentionsPostcode)) return true;
  // Only a field with no label of its own borrows the caption beside it.
  if (labelled.length === 0 && texts.length === 0 && !el.getAttribute('aria-label')) {
    return mentionsPostcode(nearbyCaption(el));
  }
  return false;
}
