/**
 * Australian postcodes are 4 ASCII digits in 0200–0299 (ACT) or 0800–9999 (anything else is 400 `Invalid postcode
 * format`). `\d` would also accept other scripts' digits in some engines' Unicode modes, so the class is spelled out.
 */
export const FOUR_ASCII_DIGITS = /^[0-9]{4}$/;

export function isAustralianPostcode(value: unknown): value is string {
  if (typeof value !== 'string' || !FOUR_ASCII_DIGITS.test(value)) return false;
  const n = Number(value);
  return (n >= 200 && n <= 299) || n >= 800;
}
