import type { LgaRef } from '../../shared/domain/lga';
import { coveredLgas } from '../../shared/eligibility/lga-coverage';
import type { ClientCheckData } from './check-answer';

/** "Brisbane", "Brisbane and Logan", "Brisbane, Logan and Ipswich": Australian style, as the server's texts write it. */
const names = new Intl.ListFormat('en-AU', { style: 'long', type: 'conjunction' });

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
  const lgas = data.location.lgas;
  if (!lgas || lgas.length < 2) return null;
  const declarations: { is_active: boolean; lgas: LgaRef[] }[] = [];
  for (const d of data.disasters) {
    if (!d.lgas) return null;
    declarations.push({ is_active: d.is_active, lgas: d.lgas });
  }
  const covered = coveredLgas(lgas, declarations);
  if (covered.length === 0 || covered.length === lgas.length) return null;
  return {
    covered: covered.map((l) => l.lga_name),
    uncovered: lgas.filter((l) => !covered.includes(l)).map((l) => l.lga_name),
  };
}

const verb = (list: string[]) => (list.length === 1 ? 'is' : 'are');

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
  const covered = names.format(cover.covered);
  const uncovered = names.format(cover.uncovered);
  return {
    label: `Check council area · ${covered} covered, ${uncovered} not`,
    detail: `Check the patient's council area: ${covered} ${verb(cover.covered)} covered, ${uncovered} ${verb(cover.uncovered)} not.`,
  };
}
