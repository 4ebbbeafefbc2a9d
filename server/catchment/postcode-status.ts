import type { CatchmentPostcode } from '../../shared/api/catchment';
import type { RelatedDeclaration } from '../../shared/domain/declaration';
import type { LgaRef } from '../../shared/domain/lga';
import type { PostcodeArea } from '../../shared/domain/postcode-area';
import { coverageOf, coveredLgas } from '../../shared/eligibility/lga-coverage';
import { compareAgrn, declarationColor, isActive, summaryColor } from '../../shared/eligibility/status';

export interface StatusSources {
  postcodes: { get(postcode: string): PostcodeArea | undefined };
  declarations: { related(lgas: readonly LgaRef[]): RelatedDeclaration[] };
}

/**
 * A catchment postcode's row on `day`: the check's summary colour, eligibility and coverage (evaluateEligibility's
 * rules, by the same functions: eligible when its LGA is known and an active declaration covers one of its LGAs; the
 * colour of the related declarations; `some` when an LGA of the postcode is left uncovered), without the texts.
 * `unknown` when the data cannot tell the postcode's LGA (or the postcode itself, once the correspondence changed): no
 * declaration can be tied to it, so it is not eligible.
 */
export function postcodeStatus(sources: StatusSources, postcode: string, day: string): CatchmentPostcode {
  const area = sources.postcodes.get(postcode);
  const lgas: LgaRef[] = (area?.lgas ?? []).map((l) => ({ lga_name: l.lga_name, lga_code: l.lga_code }));
  if (lgas.length === 0) {
    return {
      postcode,
      status_color: 'unknown',
      is_eligible: false,
      lga_name: '',
      lga_code: '',
      lgas,
      active_agrns: [],
      coverage: 'none',
      covered_lgas: [],
    };
  }
  const related = sources.declarations.related(area!.lgas);
  const active = related.filter((r) => isActive(r.declaration, day));
  const isEligible = active.length > 0;
  const covered = coveredLgas(
    lgas,
    active.map((r) => ({ is_active: true, lgas: r.lgas })),
  );
  return {
    postcode,
    status_color: isEligible ? summaryColor(related.map((r) => declarationColor(r.declaration, day))) : 'red',
    is_eligible: isEligible,
    lga_name: lgas[0]!.lga_name,
    lga_code: lgas[0]!.lga_code,
    lgas,
    active_agrns: [...new Set(active.map((r) => r.declaration.agrn))].sort(compareAgrn),
    coverage: coverageOf(isEligible, lgas.length, covered.length),
    covered_lgas: covered,
  };
}
