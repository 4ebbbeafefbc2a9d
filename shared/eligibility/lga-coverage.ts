import type { LgaRef } from '../domain/lga';
import type { Coverage } from '../api/check';

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

/**
 * all / some / none of the postcode's LGAs covered by an active declaration. Eligible with an uncovered LGA is `some`
 * even when no covered LGA could be matched by name or code: only a full match earns `all`.
 */
export function coverageOf(isEligible: boolean, lgaCount: number, coveredCount: number): Coverage {
  if (!isEligible || lgaCount === 0) return 'none';
  return coveredCount >= lgaCount ? 'all' : 'some';
}

/**
 * The coverage of an answer, from `summary.coverage` when the server sends it, otherwise worked out from the LGAs the
 * answer names (a server that keeps to the first contract). Without `lgas` on the location or on a declaration, an
 * eligible answer cannot be told apart from a partly covered one and is taken as `all`, as that server meant it.
 */
export function answerCoverage(
  data: AnswerLgas & { summary: { is_eligible: boolean; coverage?: Coverage } },
): Coverage {
  if (data.summary.coverage) return data.summary.coverage;
  if (!data.summary.is_eligible) return 'none';
  const lgas = data.location.lgas;
  if (!lgas || lgas.length <= 1) return 'all';
  const split = answerCoveredLgas(data);
  return split ? coverageOf(true, lgas.length, split.covered.length) : 'all';
}

/** What of a check answer says which LGAs it has and which each declaration covers (optional to old servers). */
export interface AnswerLgas {
  location: { lgas?: LgaRef[] };
  disasters: readonly { is_active: boolean; lgas?: LgaRef[] }[];
}

/**
 * The postcode's LGAs an answer's active declarations cover and those they do not, in the answer's order; null when
 * the answer does not name the LGAs of the postcode or of every declaration (a server of the first contract).
 */
export function answerCoveredLgas(data: AnswerLgas): { covered: LgaRef[]; uncovered: LgaRef[] } | null {
  const lgas = data.location.lgas;
  if (!lgas) return null;
  const declarations: { is_active: boolean; lgas: LgaRef[] }[] = [];
  for (const d of data.disasters) {
    if (!d.lgas) return null;
    declarations.push({ is_active: d.is_active, lgas: d.lgas });
  }
  const covered = coveredLgas(lgas, declarations);
  return { covered, uncovered: lgas.filter((lga) => !covered.includes(lga)) };
}
