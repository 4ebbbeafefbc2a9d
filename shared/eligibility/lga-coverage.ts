import type { LgaRef } from '../domain/lga';

/**
 * Codes are the reliable key; a name is the fallback because some sources give an LGA without its ABS code.
 * Names compare case-insensitively since sources disagree on capitalisation.
 */
export function sameLga(a: LgaRef, b: LgaRef): boolean {
  if (a.lga_code && b.lga_code) return a.lga_code === b.lga_code;
  return a.lga_name.trim().toLowerCase() === b.lga_name.trim().toLowerCase();
}

/**
 * The postcode's LGAs that an active declaration covers, in the order of `lgas` (the same objects, not copies).
 * The server decides eligibility with it; the extension names the covered LGAs of a partly covered postcode with it.
 */
export function coveredLgas<T extends LgaRef>(
  lgas: readonly T[],
  declarations: readonly { is_active: boolean; lgas: readonly LgaRef[] }[],
): T[] {
  const active = declarations.filter((d) => d.is_active);
  return lgas.filter((lga) => active.some((d) => d.lgas.some((c) => sameLga(c, lga))));
}
