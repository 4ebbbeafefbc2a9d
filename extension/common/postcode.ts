import { FOUR_ASCII_DIGITS } from '../../shared/api/postcode';

/**
 * A complete postcode typed into a field (a page's, or the popup's): exactly 4 ASCII digits once surrounding spaces
 * are trimmed.
 */
export function completePostcode(value: string): string | null {
  const trimmed = value.trim();
  return FOUR_ASCII_DIGITS.test(trimmed) ? trimmed : null;
}
