/**
 * Whether a piece of label-like text (a label, a name or id, a placeholder, a caption) names a postcode: the text alone,
 * no DOM.
 */

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

export const NAMES_STATE = /(?:^|[^a-z])(?:state|territory)(?![a-z])/i;
/** "PC" may stand for postcode after "State": "State/PC", "State & PC". */
export const STATE_AND_PC = /(?:^|[^a-z])state\s*(?:[/&,+-]|and)\s*P\.?C\.?\s*[:*]?\s*$/i;
