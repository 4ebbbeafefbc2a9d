import { isAustralianPostcode } from '../../shared/api/postcode';
import {
  ADDRESS_END,
  addressAfterState,
  ENDS_WITH_STATE,
  FOUR_DIGITS_SOMEWHERE,
  LABEL_THEN_DIGITS,
  POSTCODE_HEADER,
  POSTCODE_LABEL,
  STATE_THEN_DIGITS,
  VALUE_ALONE,
} from './address-patterns';
import { ownTagSet } from './dom-watch';

/**
 * Postcodes a page shows as text rather than in a field: the read-only address of a patient banner, a summary card
 * or a table row. Two shapes count, and nothing else:
 *
 * - an address ending: a state or territory abbreviation as a word of its own, then the 4 digits, then the end of
 *   the address (`12 Smith St, LISMORE NSW 2480`, `Lismore, NSW, 2480 · Medicare …`, or the state and the digits in
 *   cells of their own);
 * - a labelled value: "Postcode"/"Post code"/"Postal code"/"P/code" followed by exactly 4 digits, in the same text
 *   (`Postcode: 2480`) or as the label of a value of its own (`<dt>Postcode</dt><dd>2480</dd>`,
 *   `<td>Postcode:</td><td>2480</td>`, a table column headed "Postcode").
 *
 * Numbers in other shapes are never taken (`Invoice 2480`, `$2480`, `2480 patients`, `2024`, `02 6621 2480`), nor
 * digits in editable regions (fields, contenteditable, textboxes), in script, style, code or preformatted text, or in
 * long prose. The state must fit the postcode (`ACT 1973` is an Act of 1973, not a postcode), and a 4-digit year
 * after NSW reads as a postcode only after a place name (`SYDNEY NSW 2000`, not `floods NSW 2022`).
 *
 * Plain DOM, no layout: whether the text is drawn is for whoever places something at the ranges.
 */

/** How many postcodes in text one page reports at most. */
export const MAX_TEXT_POSTCODES = 50;
/** Text nodes longer than this are prose, not an address line. */
const MAX_TEXT_NODE = 200;
/** Nor is an address whose enclosing block holds more text than this. */
const MAX_BLOCK_TEXT = 400;
/** Longest text read as the label or state before a value of its own. */
export const MAX_LABEL_TEXT = 60;

export interface TextPostcode {
  /** The 4 digits. */
  readonly postcode: string;
  /** The text node holding them, and where in it: `node.data.slice(start, end) === postcode`. */
  readonly node: Text;
  readonly start: number;
  readonly end: number;
  /** `address`: after a state; `labelled`: after a "Postcode" label or under a "Postcode" column. */
  readonly kind: 'address' | 'labelled';
  /** A live Range over the digits, created on first use (a badge goes after its end). */
  readonly range: Range;
}

class Found implements TextPostcode {
  private made: Range | null = null;

  constructor(
    readonly postcode: string,
    readonly node: Text,
    readonly start: number,
    readonly end: number,
    readonly kind: 'address' | 'labelled',
  ) {}

  get range(): Range {
    if (!this.made) {
      const range = this.node.ownerDocument.createRange();
      range.setStart(this.node, this.start);
      range.setEnd(this.node, this.end);
      this.made = range;
    }
    return this.made;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Where not to look

/** Elements whose text is never an address on show. */
const SKIPPED_TAGS = new Set([
  'HEAD',
  'TITLE',
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'CODE',
  'PRE',
  'KBD',
  'SAMP',
  'TEXTAREA',
  'INPUT',
  'SELECT',
  'OPTION',
  'OPTGROUP',
  'DATALIST',
  'svg',
  'SVG',
  'MATH',
  'IFRAME',
  'OBJECT',
]);
const SKIPPED_SELECTOR = 'head, script, style, noscript, template, code, pre, kbd, samp, textarea, select, svg, math';

/** Inline elements: the block an address is judged by is the nearest ancestor that is not one. */
const INLINE_TAGS = new Set([
  'A',
  'ABBR',
  'B',
  'BDI',
  'BDO',
  'CITE',
  'DATA',
  'DFN',
  'EM',
  'FONT',
  'I',
  'LABEL',
  'MARK',
  'Q',
  'S',
  'SMALL',
  'SPAN',
  'STRONG',
  'SUB',
  'SUP',
  'TIME',
  'U',
  'VAR',
]);

/** Elements a value's label is never looked for across. */
const VALUE_BOUNDARY = new Set(['TR', 'TBODY', 'THEAD', 'TABLE', 'DL', 'UL', 'OL', 'FORM', 'FIELDSET', 'BODY', 'HTML']);

/** Inside something the user edits, or hidden by the page: `hidden`, contenteditable, a textbox. */
function inEditableOrHidden(el: Element): boolean {
  let found = el.closest('[contenteditable], [role="textbox"], [role="searchbox"], [hidden]');
  while (found) {
    const editable = found.getAttribute('contenteditable');
    // contenteditable="false" inside an editor is still part of the editor; on its own it is not editable.
    if (editable === null || editable.toLowerCase() !== 'false') return true;
    found = found.parentElement?.closest('[contenteditable], [role="textbox"], [role="searchbox"], [hidden]') ?? null;
  }
  return false;
}

function blockText(el: Element): number {
  let block: Element | null = el;
  while (block && INLINE_TAGS.has(block.tagName)) block = block.parentElement;
  return (block ?? el).textContent?.length ?? 0;
}

/** Whether a text's place allows an address postcode there (checked only once its text matched). */
function placeAllows(node: Text): boolean {
  const parent = node.parentElement;
  if (!parent) return false;
  if (node.ownerDocument.designMode === 'on') return false;
  if (parent.closest(SKIPPED_SELECTOR)) return false;
  if (inEditableOrHidden(parent)) return false;
  return blockText(parent) <= MAX_BLOCK_TEXT;
}

// ---------------------------------------------------------------------------------------------------------------
// One text node

function isBlank(node: Node): boolean {
  if (node.nodeType === 8) return true;
  if (node.nodeType === 3) return !(node as Text).data.trim();
  return node.nodeType === 1 && (node as Element).tagName === 'BR';
}

/**
 * The text just before a value that stands alone: its previous sibling, or that of the element holding nothing but
 * the value (up to 3 levels: `<td><span>2480</span></td>` after `<td>Postcode</td>`). Null when that is not short.
 */
function textBefore(node: Text, value: string): string | null {
  let current: Node = node;
  for (let level = 0; level < 4; level++) {
    let previous = current.previousSibling;
    while (previous && isBlank(previous)) previous = previous.previousSibling;
    if (previous) {
      if (previous.nodeType === 1 && SKIPPED_TAGS.has((previous as Element).tagName)) return null;
      const text = (previous.textContent ?? '').trim();
      return text && text.length <= MAX_LABEL_TEXT ? text : null;
    }
    const parent = current.parentElement;
    if (!parent || VALUE_BOUNDARY.has(parent.tagName) || (parent.textContent ?? '').trim() !== value) return null;
    current = parent;
  }
  return null;
}

function span(cell: Element): number {
  const n = Number(cell.getAttribute('colspan'));
  return Number.isInteger(n) && n > 1 ? n : 1;
}

/** The header of a table cell's column, when the table has a row of `<th>` only at its top. */
function columnHeader(node: Text): string | null {
  const cell = node.parentElement?.closest('td');
  const row = cell?.parentElement;
  if (!cell || !row || row.tagName !== 'TR') return null;
  const table = row.closest('table');
  if (!table) return null;
  const header = table.querySelector('thead tr') ?? table.querySelector('tr');
  if (!header || header === row || !header.querySelector('th') || header.querySelector('td')) return null;
  let column = 0;
  for (let c = cell.previousElementSibling; c; c = c.previousElementSibling) column += span(c);
  let at = 0;
  for (let h = header.firstElementChild; h; h = h.nextElementSibling) {
    at += span(h);
    if (column < at) return (h.textContent ?? '').trim();
  }
  return null;
}

/** The postcodes in one text node, in order (its place is checked only if its text matches). */
export function postcodesInText(node: Text): TextPostcode[] {
  const data = node.data;
  if (data.length > MAX_TEXT_NODE || data.length < 4 || !FOUR_DIGITS_SOMEWHERE.test(data)) return [];
  const found: Found[] = [];

  const alone = VALUE_ALONE.exec(data);
  if (alone) {
    const digits = alone[1]!;
    const start = data.indexOf(digits);
    const kind = valueAloneKind(node, digits);
    if (kind && isAustralianPostcode(digits)) found.push(new Found(digits, node, start, start + 4, kind));
  } else {
    for (const match of data.matchAll(STATE_THEN_DIGITS)) {
      const digits = match[2]!;
      const end = match.index + match[0].length;
      if (!ADDRESS_END.test(data.slice(end))) continue;
      if (!addressAfterState(match[1]!, data.slice(0, match.index), digits)) continue;
      found.push(new Found(digits, node, end - 4, end, 'address'));
    }
    for (const match of data.matchAll(LABEL_THEN_DIGITS)) {
      const digits = match[1]!;
      const end = match.index + match[0].length;
      if (!isAustralianPostcode(digits) || found.some((f) => f.end === end)) continue;
      found.push(new Found(digits, node, end - 4, end, 'labelled'));
    }
    found.sort((a, b) => a.start - b.start);
  }
  return found.length > 0 && placeAllows(node) ? found : [];
}

/** Why 4 digits standing alone are a postcode: the label or state before them, or their column's header. */
function valueAloneKind(node: Text, digits: string): 'address' | 'labelled' | null {
  const before = textBefore(node, node.data.trim().replace(/^[:：]\s*/, ''));
  if (before && POSTCODE_LABEL.test(before)) return 'labelled';
  const header = columnHeader(node);
  if (header !== null) return POSTCODE_HEADER.test(header) ? 'labelled' : null;
  if (!before) return null;
  const state = ENDS_WITH_STATE.exec(before);
  return state && addressAfterState(state[1]!, before.slice(0, state.index), digits) ? 'address' : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Subtrees

/** The extension's own elements (badge hosts, the overlay) are `dte-…`: never looked into, whatever `ownTag` says. */
const OWN_PREFIX = 'DTE-';

export interface AddressTextOptions {
  /** At most this many results (default MAX_TEXT_POSTCODES). */
  limit?: number;
  /** Tag name(s) of the extension's own elements, never looked into (besides any `dte-…` element). */
  ownTag?: string | readonly string[];
  /** Called for each open shadow root looked into (a watcher observes it). */
  onShadowRoot?(root: ShadowRoot): void;
}

/** Whether a node added to the page is inside something never looked into. */
function excludedRoot(node: Node, own: ReadonlySet<string>): boolean {
  const el = node.nodeType === 1 ? (node as Element) : node.parentElement;
  if (!el) return false;
  if (el.closest(SKIPPED_SELECTOR)) return true;
  for (const tag of own) if (el.closest(tag)) return true;
  return false;
}

/**
 * Postcodes shown in the text of `nodes` and below (each a text node, an element, a document or a shadow root), and
 * in the open shadow roots inside them: what a mutation batch added. In document order per node, at most `limit`.
 */
export function scanAdded(nodes: Iterable<Node>, options: AddressTextOptions = {}): TextPostcode[] {
  const limit = options.limit ?? MAX_TEXT_POSTCODES;
  const own = ownTagSet(options.ownTag);
  const found: TextPostcode[] = [];
  const roots: Node[] = [];
  for (const node of nodes) {
    if (node.nodeType === 9) {
      const html = (node as Document).documentElement;
      if (html) roots.push(html);
    } else if (node.nodeType === 11 || !excludedRoot(node, own)) {
      roots.push(node);
    }
  }
  for (let r = 0; r < roots.length && found.length < limit; r++) {
    const root = roots[r]!;
    let node: Node | null = root;
    while (node && found.length < limit) {
      let descend = false;
      if (node.nodeType === 3) {
        for (const match of postcodesInText(node as Text)) if (found.length < limit) found.push(match);
      } else if (node.nodeType === 1) {
        const el = node as Element;
        if (!SKIPPED_TAGS.has(el.tagName) && !own.has(el.tagName) && !el.tagName.startsWith(OWN_PREFIX)) {
          descend = true;
          const shadow = el.shadowRoot;
          if (shadow) {
            options.onShadowRoot?.(shadow);
            roots.push(shadow);
          }
        }
      } else if (node.nodeType === 11) {
        descend = true;
      }
      if (descend && node.firstChild) {
        node = node.firstChild;
        continue;
      }
      while (node && node !== root && !node.nextSibling) node = node.parentNode;
      node = node && node !== root ? node.nextSibling : null;
    }
  }
  return found;
}

/** Postcodes shown in the text of `root` and below (a document, an element or a shadow root). */
export function findAddressPostcodes(root: Node, options: AddressTextOptions = {}): TextPostcode[] {
  return scanAdded([root], options);
}
