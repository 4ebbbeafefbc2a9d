import { isCalendarDate, toDisplayDate } from '../domain/dates';
import type { RelatedDeclaration } from '../domain/declaration';
import type { LgaRef } from '../domain/lga';
import type { PostcodeArea } from '../domain/postcode-area';
import type { CheckData, DisasterView } from '../api/check';
import { declarationInstrument, type DeclarationInstrument } from './instrument';
import { coverageOf, coveredLgas } from './lga-coverage';
import { declarationColor, isActive, sortDisasters, summaryColor } from './status';
import {
  LGA_UNKNOWN_NAME,
  clinicalDecisionSupport,
  disclaimers,
  formatSuburbList,
  notesPlace,
  headlineText,
  medicareStatusText,
  proformaText,
  type TextContext,
} from './texts';

export interface EvaluateInput {
  area: PostcodeArea;
  related: RelatedDeclaration[];
  /** The day activity is judged on, YYYY-MM-DD (Australia/Sydney). */
  day: string;
  /** ISO timestamp of the last successful data refresh. */
  lastUpdated: string;
}

/** A disaster as this server sends it: the instrument, optional to clients, is always there. */
type EvaluatedDisaster = DisasterView & DeclarationInstrument;

function toView(rel: RelatedDeclaration, day: string): EvaluatedDisaster {
  const d = rel.declaration;
  return {
    agrn: d.agrn,
    title: d.title,
    hazard_type: d.hazard_type,
    start_date: d.start_date,
    end_date: d.end_date,
    url: d.url,
    status_color: declarationColor(d, day),
    is_active: isActive(d, day),
    display_date: toDisplayDate(d.start_date),
    lgas: rel.lgas.map((l) => ({ lga_name: l.lga_name, lga_code: l.lga_code })),
    ...declarationInstrument(d),
  };
}

/**
 * The whole eligibility answer for one postcode on one day. Pure: the day and the data time come in as arguments so
 * a claim audit for a past date gets exactly the answer it would have got then.
 */
export function evaluateEligibility(input: EvaluateInput): CheckData {
  const { area, related, day, lastUpdated } = input;
  // A malformed day would silently compare as text and colour every declaration wrongly; refuse it instead.
  if (!isCalendarDate(day)) {
    throw new RangeError(`evaluateEligibility: day must be YYYY-MM-DD, got ${JSON.stringify(day)}`);
  }

  const lgas: LgaRef[] = area.lgas.map((l) => ({ lga_name: l.lga_name, lga_code: l.lga_code }));
  const lgaKnown = lgas.length > 0;
  const lgaSource = lgaKnown ? area.lga_source : null;
  const disasters = sortDisasters(related.map((rel) => toView(rel, day)));
  const active = disasters.filter((d) => d.is_active);

  const covered = coveredLgas(lgas, active);
  const uncovered = lgas.filter((lga) => !covered.includes(lga));

  // Without an LGA no declaration can be tied to the patient, whatever was passed in as related.
  const isEligible = lgaKnown && active.length > 0;
  const color = isEligible ? summaryColor(disasters.map((d) => d.status_color)) : 'red';

  const ctx: TextContext = {
    postcode: area.postcode,
    suburb: notesPlace(area.suburbs),
    undecidedSuburb: area.undecided_suburb,
    state: area.state,
    lgas,
    lgaSource,
    active,
    covered,
    uncovered,
    color,
    day,
    lastUpdated,
  };

  const principal = lgas[0];
  return {
    summary: {
      is_eligible: isEligible,
      status_color: color,
      coverage: coverageOf(isEligible, lgas.length, covered.length),
      headline_text: headlineText(ctx),
      medicare_status_text: medicareStatusText(ctx),
      clinical_decision_support: clinicalDecisionSupport(ctx),
    },
    location: {
      postcode: area.postcode,
      suburb: formatSuburbList(area.suburbs),
      state: area.state,
      lga_name: principal?.lga_name ?? LGA_UNKNOWN_NAME,
      lga_code: principal?.lga_code ?? '',
      lgas,
      lga_source: lgaSource,
    },
    clinical_documentation: { proforma_text: proformaText(ctx) },
    disasters,
    disclaimers: disclaimers(),
  };
}
