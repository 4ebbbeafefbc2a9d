import { answerCoveredLgas } from '../../shared/eligibility/lga-coverage';
import { isAre, joinNames } from '../../shared/eligibility/texts';
import type { ClientCheckData } from './check-answer';

/** The council areas of a partly covered answer, by name. */
export interface PartialCover {
  covered: string[];
  uncovered: string[];
}

/**
 * Which of the postcode's council areas an active declaration covers and which it does not; null when the answer
 * does not name them (a server that sends `summary.coverage` without the LGAs of the postcode and its declarations)
 * or when they cannot be told apart.
 */
export function partialCover(data: ClientCheckData): PartialCover | null {
  const split = answerCoveredLgas(data);
  if (!split || split.covered.length === 0 || split.uncovered.length === 0) return null;
  return { covered: split.covered.map((l) => l.lga_name), uncovered: split.uncovered.map((l) => l.lga_name) };
}

/**
 * The words of a partly covered answer: it is eligible only if the patient lives in a covered council area, so the
 * words ask to check it, and never say "Eligible" alone.
 */
export function partialWords(data: ClientCheckData): { label: string; detail: string } {
  const cover = partialCover(data);
  if (!cover) {
    return {
      label: 'Check council area · only some covered',
      detail:
        "Check the patient's council area: an active declaration covers only some of this postcode's council areas.",
    };
  }
  const covered = joinNames(cover.covered);
  const uncovered = joinNames(cover.uncovered);
  return {
    label: `Check council area · ${covered} covered, ${uncovered} not`,
    detail: `Check the patient's council area: ${covered} ${isAre(cover.covered)} covered, ${uncovered} ${isAre(cover.uncovered)} not.`,
  };
}
