import { FOUR_ASCII_DIGITS, isAustralianPostcode } from '../../shared/api/postcode';

/**
 * A complete postcode typed into a field (a page's, or the popup's): exactly 4 ASCII digits once surrounding spaces
 * are trimmed.
 */
export function completePostcode(value: string): string | null {
  const trimmed = value.trim();
  return FOUR_ASCII_DIGITS.test(trimmed) ? trimmed : null;
}

/** A state or territory as an address writes it before the postcode: `NSW 2480`, `Qld 4000`, `Victoria, 3000`. */
const STATE =
  'NSW|VIC|QLD|SA|WA|TAS|NT|ACT|New South Wales|Victoria|Queensland|South Australia|Western Australia|Tasmania|' +
  'Northern Territory|Australian Capital Territory';

/**
 * 4 ASCII digits after a state, as the last part of an Australian address: `12 Smith St, LISMORE NSW 2480`. The state
 * is a word of its own (not the end of `DSA`), the digits are not followed by another digit or a letter.
 */
const ADDRESS_POSTCODE = new RegExp(`(?<![A-Za-z])(?:${STATE})\\.?,?\\s*([0-9]{4})(?![0-9A-Za-z])`, 'gi');

/**
 * 4 ASCII digits standing alone. Not when they are part of something else that writes 4 digits: a longer number
 * (`12345`, `1,2480`), a word (`A2480`, `2480B`), a date or time (`12/03/2024`, `2024-03-12`, `10:30`), an amount
 * (`$1500`, `1500.00`, `40%`), a reference (`#2480`, `+61`) or a phone number written in groups (`1300 123 456`,
 * `02 9876 5432`).
 */
const STANDALONE_POSTCODE =
  /(?<![0-9A-Za-z/:.,\-$#+_@])(?<![0-9]\s)([0-9]{4})(?![0-9A-Za-z/:\-%_@])(?![.,][0-9])(?!\s[0-9])/g;

/**
 * The postcode of a piece of text the user selected: the first Australian postcode written as the end of an address
 * (after the state), or else the first one standing alone, so a street number (`1234 Main Rd, Lismore NSW 2480`) is
 * not taken for it. Only well-formed postcodes in the Australian ranges count; null when the text has none.
 */
export function postcodeInText(text: string): string | null {
  for (const pattern of [ADDRESS_POSTCODE, STANDALONE_POSTCODE]) {
    for (const match of text.matchAll(pattern)) {
      const digits = match[1]!;
      if (isAustralianPostcode(digits)) return digits;
    }
  }
  return null;
}
