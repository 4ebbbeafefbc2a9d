/**
 * What the markup says of an input, without layout: whether it takes text, and the texts that label it (`<label>`,
 * aria-labelledby, aria-label, or a caption beside it).
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

/** The document or open shadow root `node` lives in: ids and `<label for>` are looked up there. */
export function treeOf(node: Node, doc: Document): Document | ShadowRoot {
  const root = node.getRootNode();
  return root.nodeType === 11 && (root as ShadowRoot).host ? (root as ShadowRoot) : doc;
}

/**
 * The `<label for=…>` texts of a document (and of each open shadow root an input is in), indexed by the id they point
 * at, built on first use. Chrome's `input.labels` (and `querySelector('label[for=…]')`) walk the whole document for
 * every input after a DOM change, which on a 10,000-element page costs 0.2–0.4 ms per input; one pass over the
 * document's labels serves every input of a mutation batch instead. Build a new index for each batch: it does not
 * follow later changes.
 */
export class LabelIndex {
  private readonly byTree = new Map<Document | ShadowRoot, Map<string, Element[]>>();

  constructor(private readonly doc: Document) {}

  /**
   * Texts of the labels associated with `el`: a wrapping `<label>` and any `<label for>` its id, in `tree` (the
   * document or shadow root `el` is in: pass it when known, it saves a lookup per element).
   */
  textsFor(el: Element, tree: Document | ShadowRoot = treeOf(el, this.doc)): string[] {
    const texts: string[] = [];
    const wrapping = el.closest('label');
    if (wrapping && !wrapping.hasAttribute('for')) texts.push(wrapping.textContent ?? '');
    const id = el.getAttribute('id');
    if (id) {
      const labels = this.index(tree).get(id);
      if (labels) for (const label of labels) texts.push(label.textContent ?? '');
    }
    return texts;
  }

  /** Labels by their `for`; their text is read only when an input asks, so one pass reads one attribute per label. */
  private index(tree: Document | ShadowRoot): Map<string, Element[]> {
    const known = this.byTree.get(tree);
    if (known) return known;
    const map = new Map<string, Element[]>();
    // A shadow root has no getElementsByTagName.
    const labels: ArrayLike<Element> =
      tree === this.doc ? this.doc.getElementsByTagName('label') : tree.querySelectorAll('label[for]');
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!;
      const target = label.getAttribute('for');
      if (!target) continue;
      const list = map.get(target);
      if (list) list.push(label);
      else map.set(target, [label]);
    }
    this.byTree.set(tree, map);
    return map;
  }
}

function labelledByTexts(el: Element): string[] {
  const ids = el.getAttribute('aria-labelledby');
  if (!ids) return [];
  const tree = treeOf(el, el.ownerDocument);
  return ids
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => tree.getElementById(id)?.textContent ?? '');
}

export const CONTROL_TAGS = new Set(['INPUT', 'SELECT', 'TEXTAREA']);

function shortText(node: Node | null): string | null {
  if (!node) return null;
  if (node.nodeType === 1) {
    const tag = (node as Element).tagName;
    if (CONTROL_TAGS.has(tag) || tag === 'SCRIPT' || tag === 'STYLE') return null;
    // A cell holding a control is that control's, not a caption (a select's options would read as its text).
    if ((node as Element).querySelector('input, select, textarea')) return null;
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

/** The texts that label `el` by markup: `<label>`s, aria-labelledby, aria-label; empty when it has none. */
export function markupLabels(el: Element, labels: LabelIndex, tree?: Document | ShadowRoot): string[] {
  const texts = labels.textsFor(el, tree);
  if (el.hasAttribute('aria-labelledby')) texts.push(...labelledByTexts(el));
  const aria = el.getAttribute('aria-label');
  if (aria) texts.push(aria);
  return texts;
}
