import { CONTROL_TAGS } from './field-markup';
import { labelNamesPostcode, namesStateAndPostcode } from './label-words';
import { siblingControls } from './shared-label';

/**
 * Layout proximity: a label the markup does not tie to its field (a floating label without `for`, a form library's
 * label column), found by where it is drawn.
 */

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
