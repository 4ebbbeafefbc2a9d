import { isAustralianPostcode } from '../../shared/api/postcode';

/**
 * The shapes of a postcode in an address shown as text: the states and the postcodes each may have, and the patterns
 * of an address ending and of a labelled value. Text only, no DOM.
 */

const STATES = 'NSW|VIC|QLD|SA|WA|TAS|NT|ACT';

/** Postcode ranges of each state and territory (including the towns across a border that use the other's). */
const STATE_RANGES: Record<string, readonly (readonly [number, number])[]> = {
  NSW: [
    [1000, 2599],
    [2619, 2899],
    [2921, 2999],
    [3500, 3799],
    [4300, 4399],
  ],
  ACT: [
    [200, 299],
    [2600, 2620],
    [2900, 2920],
  ],
  VIC: [
    [3000, 3999],
    [8000, 8999],
  ],
  QLD: [
    [4000, 4999],
    [9000, 9999],
  ],
  SA: [
    [5000, 5999],
    [872, 872],
  ],
  WA: [
    [6000, 6999],
    [872, 872],
  ],
  TAS: [[7000, 7999]],
  NT: [[800, 999]],
};

/** A state, then the digits: `NSW 2480`, `NSW, 2480`, `Qld  4000`. */
export const STATE_THEN_DIGITS = new RegExp(`(?<![A-Za-z0-9])(${STATES})(?:\\s*,\\s*|\\s+)([0-9]{4})(?![0-9])`, 'gi');

/**
 * What may follow the digits of an address: nothing, a separator, a line break, a wide gap, or the country. Not a
 * word or another number (`NSW 2022 floods`, `QLD 4000 1234`).
 */
export const ADDRESS_END =
  /^(?:\s*$|\s*[,;·•|)\]]|\s*\.\s*$|[ \u00a0]*[\r\n\t]|\s{2,}|\s+[–—-]\s|\s+(?:australia|aus|au)\b)/i;

/** Text ending with a state, before a value of its own: `NSW`, `LISMORE NSW`, `Lismore, NSW,`. */
export const ENDS_WITH_STATE = new RegExp(`(?<![A-Za-z0-9])(${STATES})\\s*,?\\s*$`, 'i');

const POSTCODE_WORD = "(?:post\\s?code|postal\\s?code|p\\s?[/'’.]\\s?code|pcode)";

/** "Postcode: 2480", "P/code 2480" in one text. */
export const LABEL_THEN_DIGITS = new RegExp(
  `(?<![A-Za-z])${POSTCODE_WORD}\\s*[:：–-]?\\s*([0-9]{4})(?![0-9A-Za-z%])(?!\\s?[0-9])(?![.,/:-][0-9])`,
  'gi',
);

/** A whole label naming a postcode: "Postcode", "Post code:", "P/code", "Postal code *". */
export const POSTCODE_LABEL = new RegExp(`^\\s*(?:patient'?s?\\s+)?${POSTCODE_WORD}\\s*[:：]?\\s*\\*?\\s*$`, 'i');

/** A column header naming a postcode ("Postcode", "Patient postcode", "Post code"). */
export const POSTCODE_HEADER = new RegExp(`(?:^|[^a-z])${POSTCODE_WORD}(?![a-z])`, 'i');

/** A value of its own: 4 digits, maybe after the label's colon (`<b>Postcode</b>: 2480`). */
export const VALUE_ALONE = /^\s*[:：]?\s*([0-9]{4})\s*$/;

export const FOUR_DIGITS_SOMEWHERE = /[0-9]{4}/;

function stateFits(state: string, n: number): boolean {
  const ranges = STATE_RANGES[state.toUpperCase()];
  return !!ranges && ranges.some(([low, high]) => n >= low && n <= high);
}

/**
 * Whether a state followed by `postcode`, with `before` the text before the state, reads as an address: the state
 * fits the postcode, and a year-like number (1900–2099, all in NSW's range) comes after an upper-case state that
 * follows a place name or a comma.
 */
export function addressAfterState(state: string, before: string, postcode: string): boolean {
  const n = Number(postcode);
  if (!isAustralianPostcode(postcode) || !stateFits(state, n)) return false;
  if (n < 1900 || n > 2099) return true;
  return state === state.toUpperCase() && /(?:(?:^|[\s,])[A-Z][A-Za-z'’.-]*,?\s+|,\s*)$/.test(before);
}
