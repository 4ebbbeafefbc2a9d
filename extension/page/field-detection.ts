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

/** "P/code", "P'code", "P’code", "P.code": the abbreviations of "postcode" that keep the word "code". */
const P_ABBREVIATED_CODE = /(?:^|[^a-z])p\s?[/'’.]\s?code(?![a-z])/i;

/**
 * Whether a piece of label-like text names a postcode: "Postcode", "Post code", "Postal code", "post_code",
 * "txtPostCode", "patient[address][postcode]", "Zip", "zipCode", "PCode", "P/code", "P'code". Words are glued together
 * so separators and camelCase do not matter; "zip"/"pcode" must be whole words so "unzip" or "zipper" do not count.
 */
export function mentionsPostcode(text: string | null | undefined): boolean {
  if (!text) return false;
  const lower = text.toLowerCase();
  const glued = lower.replace(/[^a-z]+/g, '');
  if (glued.includes('postcode') || glued.includes('postalcode')) return true;
  if (lower.includes('code') && P_ABBREVIATED_CODE.test(lower)) return true;
  if (!lower.includes('zip') && !lower.includes('pcode')) return false;
  const words = text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/);
  return words.some((w) => w === 'zip' || w === 'zipcode' || w === 'pcode');
}

/** A label that is "PC" and nothing else (a colon or a required star may follow): "PC", "PC:", "P.C. *". */
const PC_ALONE = /^\s*P\.?C\.?\s*[:：]?\s*\*?\s*$/;

/**
 * Whether the text a person reads as a field's label names a postcode: what `mentionsPostcode` accepts, or "PC" as
 * the whole label. "PC" inside other text ("PC Smith", "PC name", "PCR") does not count, and neither does "pc" as a
 * name or id, which is left to mentionsPostcode.
 */
export function labelNamesPostcode(text: string | null | undefined): boolean {
  if (!text) return false;
  return mentionsPostcode(text) || PC_ALONE.test(text);
}

/** A label shared by the state and the postcode of an address: "State / Postcode", "State/P'code", "State & PC". */
export function namesStateAndPostcode(text: string | null | undefined): boolean {
  if (!text || !NAMES_STATE.test(text)) return false;
  return STATE_AND_PC.test(text) || labelNamesPostcode(text);
}

const NAMES_STATE = /(?:^|[^a-z])(?:state|territory)(?![a-z])/i;
/** "PC" may stand for postcode after "State": "State/PC", "State & PC". */
const STATE_AND_PC = /(?:^|[^a-z])state\s*(?:[/&,+-]|and)\s*P\.?C\.?\s*[:*]?\s*$/i;

/** `autocomplete` tokens, e.g. "shipping postal-code" or "section-patient billing postal-code". */
function autocompleteSaysPostcode(input: Element): boolean {
  const value = input.getAttribute('autocomplete');
  if (!value) return false;
  return value.toLowerCase().split(/\s+/).includes('postal-code');
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

const CONTROL_TAGS = new Set(['INPUT', 'SELECT', 'TEXTAREA']);

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
function markupLabels(el: Element, labels: LabelIndex, tree?: Document | ShadowRoot): string[] {
  const texts = labels.textsFor(el, tree);
  if (el.hasAttribute('aria-labelledby')) texts.push(...labelledByTexts(el));
  const aria = el.getAttribute('aria-label');
  if (aria) texts.push(aria);
  return texts;
}

// ---------------------------------------------------------------------------------------------------------------
// A label shared by two controls: "State / Postcode" over a state select and a postcode input.

/** Controls of a small group: the first ancestor (at most 3 up) holding more than one, if it holds a few only. */
function siblingControls(el: Element): Element[] {
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
function postcodeOfPair(label: string, pair: Element[]): Element | null {
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
function pairFrom(first: Element, labels: LabelIndex): Element[] {
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
function partnerOfSharedLabel(input: Element, labels: LabelIndex): boolean {
  const controls = siblingControls(input);
  const index = controls.indexOf(input);
  const previous = index > 0 ? controls[index - 1]! : null;
  if (!previous) return false;
  const shared = labelTextsOf(previous, labels).find(namesStateAndPostcode);
  return !!shared && postcodeOfPair(shared, [previous, input]) === input;
}

// ---------------------------------------------------------------------------------------------------------------
// Layout proximity: a label the markup does not tie to its field (a floating label without `for`, a form library's
// label column), found by where it is drawn.

/** Ancestors looked into, and elements visited in all, when looking for a label drawn next to an input. */
const PROXIMITY_LEVELS = 5;
const PROXIMITY_NODES = 120;
/** Longest text taken for a label drawn next to a field. */
const MAX_DRAWN_LABEL = 40;
/** Furthest a label may be drawn from its field: above it, and to its left. */
const MAX_GAP_ABOVE = 40;
const MAX_GAP_LEFT = 320;

const NOT_LABEL_TAGS = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'OPTION',
  'OPTGROUP',
  'SELECT',
  'TEXTAREA',
  'BUTTON',
  'DATALIST',
]);

interface Drawn {
  text: string;
  /** What to measure: the label's element, or its text when the element also holds controls. */
  box: Element | Text;
}

/**
 * Label-like texts and controls near `input` in the markup: the content of its nearest few ancestors, a bounded
 * number of elements. No layout is read here.
 */
function nearbyTextsAndControls(input: Element, skipTag: (el: Element) => boolean) {
  const texts: Drawn[] = [];
  const controls: Element[] = [input];
  const seen = new Set<Element>();
  let budget = PROXIMITY_NODES;
  let done: Element = input;
  let container = input.parentElement;
  for (let level = 0; container && level < PROXIMITY_LEVELS && budget > 0; level++) {
    if (container.tagName === 'BODY' || container.tagName === 'HTML') break;
    // Depth-first through the container, leaving out the part already looked at.
    let node: Node | null = container.firstChild;
    while (node && budget > 0) {
      let descend = false;
      if (node === done) {
        // already visited
      } else if (node.nodeType === 1) {
        budget--;
        const el = node as Element;
        if (CONTROL_TAGS.has(el.tagName)) {
          if (el.tagName !== 'INPUT' || (el as HTMLInputElement).type !== 'hidden') controls.push(el);
        } else if (!NOT_LABEL_TAGS.has(el.tagName) && !skipTag(el)) {
          descend = true;
        }
      } else if (node.nodeType === 3) {
        budget--;
        const data = (node as Text).data;
        if (data.trim()) {
          const parent = node.parentElement!;
          if (!seen.has(parent)) {
            seen.add(parent);
            const whole = (parent.textContent ?? '').trim();
            if (whole.length <= MAX_DRAWN_LABEL && !parent.querySelector('input, select, textarea')) {
              texts.push({ text: whole, box: parent });
            } else if (data.trim().length <= MAX_DRAWN_LABEL) {
              texts.push({ text: data.trim(), box: node as Text });
            }
          }
        }
      }
      if (descend && node.firstChild) {
        node = node.firstChild;
        continue;
      }
      while (node && node !== container && !node.nextSibling) node = node.parentNode;
      node = node && node !== container ? node.nextSibling : null;
    }
    done = container;
    container = container.parentElement;
  }
  return { texts, controls };
}

function rectOf(box: Element | Text): DOMRect {
  if (box.nodeType === 1) return (box as Element).getBoundingClientRect();
  const range = box.ownerDocument!.createRange();
  range.selectNodeContents(box);
  return range.getBoundingClientRect();
}

/** A drawn box: a DOMRect, or the union of two (a plain object: linkedom, the unit tests' DOM, has no DOMRect). */
type Box = Pick<DOMRect, 'left' | 'top' | 'right' | 'bottom' | 'width' | 'height'>;

/**
 * How far a label drawn at `label` is from a field drawn at `field`, read the way forms are: above the field, to its
 * left on the same line, or over it (a floating label before it floats). Infinity when it is none of these.
 */
function labelDistance(label: Box, field: Box): number {
  if (label.width === 0 && label.height === 0) return Infinity;
  const hOverlap = Math.min(label.right, field.right) - Math.max(label.left, field.left);
  const vOverlap = Math.min(label.bottom, field.bottom) - Math.max(label.top, field.top);
  if (hOverlap > 0 && vOverlap > 0) {
    // Over the field: a floating label resting in the box. Only if it sits inside it, not a wider block around it.
    const inside = label.left >= field.left - 2 && label.right <= field.right + 2 && label.height <= field.height + 4;
    return inside ? 0 : Infinity;
  }
  if (vOverlap >= Math.min(label.height, field.height) / 2 && label.right <= field.left + 2) {
    const gap = field.left - label.right;
    return gap <= MAX_GAP_LEFT ? gap : Infinity;
  }
  if (label.bottom <= field.top + 2 && (hOverlap > 0 || Math.abs(label.left - field.left) <= 16)) {
    const gap = field.top - label.bottom;
    return gap <= MAX_GAP_ABOVE ? gap : Infinity;
  }
  return Infinity;
}

/**
 * Widest gap between the parts of a compact group: none in Space.Compact or an input group, a space or a flex gap in
 * plain markup. Wider apart, they are two fields, and a label over the first is the first one's.
 */
const MAX_GROUP_GAP = 16;

/**
 * The compact group an input ends, as drawn: the control just before it in a small group (a state select), drawn on
 * the same line right against it, and the box of both. A label over such a group ("State / Postcode" above Ant
 * Design's Space.Compact of a Select and an Input) is often drawn over its first part only, clear of the input, so it
 * must be measured against the whole group. Null when the input is not the later part of such a pair.
 */
function compactGroup(input: Element): { first: Element; box: Box } | null {
  const controls = siblingControls(input);
  const index = controls.indexOf(input);
  if (index < 1) return null;
  const first = controls[index - 1]!;
  let container = input.parentElement;
  while (container && !container.contains(first)) container = container.parentElement;
  if (!container) return null;
  // Each control's box as the user sees it: its outermost wrapper below the element both share (a Select's box, not
  // the narrow combobox input inside it).
  const partOf = (el: Element): Element => {
    let part = el;
    while (part.parentElement && part.parentElement !== container) part = part.parentElement;
    return part;
  };
  const before = partOf(first).getBoundingClientRect();
  const own = partOf(input).getBoundingClientRect();
  const vOverlap = Math.min(before.bottom, own.bottom) - Math.max(before.top, own.top);
  if (vOverlap < Math.min(before.height, own.height) / 2) return null;
  // Compact groups overlap their borders by a pixel or two.
  if (before.left >= own.left || before.right > own.left + 4 || own.left - before.right > MAX_GROUP_GAP) return null;
  const left = before.left;
  const top = Math.min(before.top, own.top);
  const right = Math.max(before.right, own.right);
  const bottom = Math.max(before.bottom, own.bottom);
  return { first, box: { left, top, right, bottom, width: right - left, height: bottom - top } };
}

/** A label drawn next to an input, and the control it is drawn closest to. */
export interface DrawnLabel {
  text: string;
  /** The control the label is closest to: the input itself, or a neighbour (the select of "State / Postcode"). */
  owner: Element;
}

/**
 * The label drawn next to an input that has none in the markup: the closest short text above it, to its left or
 * over it, within the input's nearest few ancestors, with the control that label is closest to (a neighbouring
 * field's label belongs to that field). Layout is read only when some text nearby names a postcode; otherwise the
 * answer cannot matter and this returns null without reading any.
 */
export function drawnLabel(input: Element, skipTag: (el: Element) => boolean = () => false): DrawnLabel | null {
  const { texts, controls } = nearbyTextsAndControls(input, skipTag);
  if (!texts.some((t) => labelNamesPostcode(t.text) || namesStateAndPostcode(t.text))) return null;
  const field = input.getBoundingClientRect();
  if (field.width === 0 && field.height === 0) return null;
  let best: Drawn | null = null;
  let bestRect: DOMRect | null = null;
  let bestDistance = Infinity;
  let owner: Element = input;
  // Measured only when a shared "State / Postcode" text is near (undefined: not yet).
  let group: ReturnType<typeof compactGroup> | undefined;
  for (const t of texts) {
    const rect = rectOf(t.box);
    let d = labelDistance(rect, field);
    let drawnFor: Element = input;
    if (namesStateAndPostcode(t.text)) {
      if (group === undefined) group = compactGroup(input);
      const toGroup = group ? labelDistance(rect, group.box) : Infinity;
      // Drawn for the group: it belongs to the group's first control, and the pair rule (drawnLabelGivesPostcode)
      // then gives the postcode to this input, never to that control.
      if (group && toGroup < d) [d, drawnFor] = [toGroup, group.first];
    }
    if (d < bestDistance) {
      best = t;
      bestRect = rect;
      bestDistance = d;
      owner = drawnFor;
    }
  }
  if (!best || !bestRect) return null;
  for (const control of controls) {
    if (control === input || control === owner) continue;
    const d = labelDistance(bestRect, control.getBoundingClientRect());
    if (d < bestDistance) {
      owner = control;
      bestDistance = d;
    }
  }
  return { text: best.text, owner };
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

// ---------------------------------------------------------------------------------------------------------------

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
