import type { EvaluatedPostcode } from '../../../server/catchment/catchment-repository';

/** The baseline refresh: nothing eligible. */
export const BASELINE = '2026-11-20T00:00:00.000Z';
/** The refresh after it: every postcode below 2600 covered by AGRN 1001. */
export const COVERED = '2026-11-21T00:00:00.000Z';

/** How the data judges `postcode` at `refresh`: the same rule in the test and its worker. */
export function evaluateAt(refresh: string, postcode: string): EvaluatedPostcode {
  const covered = refresh >= COVERED && postcode < '2600';
  const lgaName = `LGA ${postcode.slice(0, 2)}`;
  return {
    state: { is_eligible: covered, active_agrns: covered ? ['1001'] : [] },
    lgaName,
    coverage: covered ? 'all' : 'none',
    covered: covered ? [lgaName] : [],
    uncovered: covered ? [] : [lgaName],
  };
}
